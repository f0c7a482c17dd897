"""Development helpers shared by test/ and bench/ (not installed with `enc`).

  reference       float64 numpy evaluation of the .enc semantics (docs/numerics.md)
  torch_export    the same formulas in PyTorch, an independent cross-check
  safetensors_io  safetensors reader/writer, and broken files for negative tests
  hf_layouts      weights under each Hugging Face family's tensor names
  metrics         errors and cosines of an output against the reference

Scripts put the repository's python/ folder on sys.path and import
`from enc_dev import reference`; nothing here imports test/ or bench/.
"""
