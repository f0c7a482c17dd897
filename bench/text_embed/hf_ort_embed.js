// The peer of text_embed_bench.c, as fastembed runs a model: Hugging Face
// tokenizers (its Node binding) and ONNX Runtime (onnxruntime-node, CPU) in
// one Node process; texts to mean-pooled, normalised embeddings in batches.
//
//   node hf_ort_embed.js TOKENIZER MODEL.onnx QUERIES THREADS BATCH ROUNDS [OUT.f32]
//
// Each batch: encodeBatch (padded to its longest, the file's truncation),
// int64 tensors, session.run. Each round embeds every batch once; the time of
// the tokenizer (encodeBatch and the tensors) is summed apart. Prints the
// medians over rounds of the milliseconds per batch, as text_embed_bench.
'use strict';
const fs = require('fs');
const path = require('path');
const { ort, Tokenizer, median, now, createSession, readLines, cliArgs } =
  require(path.join(__dirname, '..', 'node', 'peer.js'));

async function main() {
  const [tokPath, modelPath, queriesPath, threadsArg, batchArg, roundsArg, outPath] = cliArgs(
    'hf_ort_embed.js', ['TOKENIZER', 'MODEL', 'QUERIES', 'THREADS', 'BATCH', 'ROUNDS'], ['OUT']);
  const threads = Number(threadsArg), batch = Number(batchArg), rounds = Number(roundsArg);
  const tok = Tokenizer.fromFile(tokPath);
  tok.setPadding({});  // to the longest of each batch, the file's pad token
  const session = await createSession(modelPath, threads);
  const texts = readLines(queriesPath);
  const batches = Math.ceil(texts.length / batch);
  const embedMs = [], tokenizeMs = [];
  let rows = [];
  for (let r = 0; r < rounds; ++r) {
    let tokenize = 0;
    rows = [];
    const t0 = now();
    for (let b = 0; b < texts.length; b += batch) {
      const t1 = now();
      const encodings = await tok.encodeBatch(texts.slice(b, b + batch));
      const m = encodings.length, s = encodings[0].getIds().length;
      const ids = new BigInt64Array(m * s), mask = new BigInt64Array(m * s);
      const types = new BigInt64Array(m * s);
      encodings.forEach((e, i) => {
        const a = e.getIds(), am = e.getAttentionMask(), tt = e.getTypeIds();
        for (let j = 0; j < s; ++j) {
          ids[i * s + j] = BigInt(a[j]);
          mask[i * s + j] = BigInt(am[j]);
          types[i * s + j] = BigInt(tt[j]);
        }
      });
      const feeds = {
        input_ids: new ort.Tensor('int64', ids, [m, s]),
        attention_mask: new ort.Tensor('int64', mask, [m, s]),
        token_type_ids: new ort.Tensor('int64', types, [m, s]),
      };
      tokenize += now() - t1;
      const out = await session.run(feeds);
      rows.push(out[session.outputNames[0]].data);
    }
    embedMs.push((now() - t0) / batches);
    tokenizeMs.push(tokenize / batches);
  }
  console.log(`hf+ort ${texts.length} texts, batches of ${batch}, ${threads} threads: ` +
    `embed ${median(embedMs).toFixed(3)} ms/batch, tokenize ${median(tokenizeMs).toFixed(3)} ms/batch ` +
    `(medians of ${rounds} rounds)`);
  if (outPath) {
    const bufs = rows.map((y) => Buffer.from(y.buffer, y.byteOffset, y.byteLength));
    fs.writeFileSync(outPath, Buffer.concat(bufs));
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
