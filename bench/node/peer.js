// What the Node peers of bench/text_embed and bench/rerank share: Hugging
// Face tokenizers and ONNX Runtime as fastembed and text-embeddings-inference
// set them up (one session, graph optimisations on, THREADS intra-op threads,
// sequential), the input lines, and the timing helpers.
'use strict';
const fs = require('fs');
const path = require('path');
const root = path.join(__dirname, '..', '..');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));
const { Tokenizer } = require(path.join(root, 'test', 'tokenizer', 'node', 'node_modules', 'tokenizers'));

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const now = () => Number(process.hrtime.bigint()) * 1e-6;

function createSession(modelPath, threads) {
  return ort.InferenceSession.create(modelPath, {
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
}

// The lines of a text file, without the empty one after its last newline.
function readLines(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

module.exports = { ort, Tokenizer, median, now, createSession, readLines };
