// Hugging Face tokenizers (the Node binding of test/tokenizer/node) on the
// lines of a text file, as tokenize_bench runs encc's: one thread
// (RAYON_NUM_THREADS=1, set by run.sh), encodeBatch over chunks of 1,000
// lines with special tokens, the median of RUNS passes.
//
//   node hf_tokenize.js TOKENIZER TEXT [RUNS]
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require(path.join(__dirname, '..', '..', 'test', 'tokenizer', 'node', 'node_modules', 'tokenizers'));

async function main() {
  const [tokPath, textPath, runsArg] = process.argv.slice(2);
  const runs = Number(runsArg || 5);
  const tok = Tokenizer.fromFile(tokPath);
  tok.disableTruncation();
  tok.disablePadding();
  const text = fs.readFileSync(textPath, 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const bytes = Buffer.byteLength(text, 'utf8') - lines.length;
  const seconds = [];
  let tokens = 0;
  for (let r = 0; r < runs; ++r) {
    tokens = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < lines.length; i += 1000) {
      const encodings = await tok.encodeBatch(lines.slice(i, i + 1000));
      for (const e of encodings) tokens += e.getIds().length;
    }
    seconds.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  seconds.sort((a, b) => a - b);
  const s = seconds[Math.floor(seconds.length / 2)];
  console.log(`hf ${lines.length} lines ${(bytes / 1e6).toFixed(1)} MB ${tokens} tokens: ${s.toFixed(3)} s, ` +
    `${(bytes / 1e6 / s).toFixed(1)} MB/s, ${(tokens / 1e6 / s).toFixed(2)} M tokens/s`);
}
main().catch((e) => { console.error(e); process.exit(1); });
