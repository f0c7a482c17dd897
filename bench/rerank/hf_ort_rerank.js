// The peer of encc_rerank.py, as text-embeddings-inference and fastembed
// rerank: Hugging Face tokenizers (its Node binding) encodes the (query,
// passage) pairs (one encode per pair, all awaited together: the binding's
// encodeBatch takes no pairs), padded to the longest, ONNX Runtime
// (onnxruntime-node, CPU) runs the exported cross-encoder, and the scores
// are sorted.
//
//   node hf_ort_rerank.js TOKENIZER MODEL.onnx QUERY_AND_PASSAGES THREADS ROUNDS [OUT.f32]
'use strict';
const fs = require('fs');
const path = require('path');
const { ort, Tokenizer, median, now, createSession, readLines, cliArgs } =
  require(path.join(__dirname, '..', 'node', 'peer.js'));

async function main() {
  const [tokPath, modelPath, textsPath, threadsArg, roundsArg, outPath] = cliArgs(
    'hf_ort_rerank.js', ['TOKENIZER', 'MODEL', 'TEXTS', 'THREADS', 'ROUNDS'], ['OUT']);
  const threads = Number(threadsArg), rounds = Number(roundsArg);
  const tok = Tokenizer.fromFile(tokPath);
  tok.setTruncation(512);
  const session = await createSession(modelPath, threads);
  const lines = readLines(textsPath);
  const query = lines[0], docs = lines.slice(1);
  let scores = null;
  const rerank = async () => {
    const encodings = await Promise.all(docs.map((d) => tok.encode(query, d)));
    const m = encodings.length;
    const s = Math.max(...encodings.map((e) => e.getIds().length));
    // Padding: id 0 ([PAD]), mask 0, type 0.
    const ids = new BigInt64Array(m * s), mask = new BigInt64Array(m * s);
    const types = new BigInt64Array(m * s);
    encodings.forEach((e, i) => {
      const a = e.getIds(), am = e.getAttentionMask(), tt = e.getTypeIds();
      for (let j = 0; j < a.length; ++j) {
        ids[i * s + j] = BigInt(a[j]);
        mask[i * s + j] = BigInt(am[j]);
        types[i * s + j] = BigInt(tt[j]);
      }
    });
    const out = await session.run({
      input_ids: new ort.Tensor('int64', ids, [m, s]),
      attention_mask: new ort.Tensor('int64', mask, [m, s]),
      token_type_ids: new ort.Tensor('int64', types, [m, s]),
    });
    scores = out[session.outputNames[0]].data;
    return [...scores.keys()].sort((x, y) => scores[y] - scores[x]);
  };
  await rerank();  // warm
  const ms = [];
  for (let r = 0; r < rounds; ++r) {
    const t0 = now();
    await rerank();
    ms.push(now() - t0);
  }
  console.log(`hf+ort ${docs.length} passages, ${threads} threads: rerank ` +
    `${median(ms).toFixed(3)} ms/query (median of ${rounds} rounds)`);
  if (outPath) fs.writeFileSync(outPath, Buffer.from(scores.buffer, scores.byteOffset, scores.byteLength));
}
main().catch((e) => { console.error(e); process.exit(1); });
