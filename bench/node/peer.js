// What the Node peers of bench/text_embed and bench/rerank share: Hugging
// Face tokenizers and ONNX Runtime as fastembed and text-embeddings-inference
// set them up (one session, graph optimisations on, THREADS intra-op threads,
// sequential), the command line, the input lines, and the timing helpers.
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

// The command line's arguments after the script: at least the `required`
// ones (by name), else the usage line, built from the names, and exit 2.
function cliArgs(script, required, optional = []) {
  const args = process.argv.slice(2);
  if (args.length < required.length) {
    const names = required.concat(optional.map((n) => `[${n}]`)).join(' ');
    process.stderr.write(`usage: node ${script} ${names}\n`);
    process.exit(2);
  }
  return args;
}

// The lines of a text file, without the empty one after its last newline.
function readLines(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

module.exports = { ort, Tokenizer, median, now, createSession, readLines, cliArgs };
