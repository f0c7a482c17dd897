// Holds encc's tokenizer (tokenize_dump) against Hugging Face `tokenizers`
// (its Node binding, installed in test/tokenizer/node by
// scripts/bootstrap.sh) on every case of a corpus: ids, type ids, attention
// mask, offsets (HF gives code point indices, encc bytes: converted here)
// and the decoded text must be equal.
//
//   node compare.js DUMP TOKENIZER CORPUS [MAX_LENGTH STRATEGY]
//   (DUMP: tokenize_dump, or py_tokenize_dump.py for the Python package)
//   (STRATEGY: LongestFirst, OnlyFirst or OnlySecond)
//
// Prints "N cases: N equal" and exits 1 on any difference (the first few are
// shown).
'use strict';
const path = require('path');
const fs = require('fs');
const { execFileSync } = require('child_process');
const hfTokenizers = require(path.join(__dirname, 'node', 'node_modules', 'tokenizers'));
const { Tokenizer } = hfTokenizers;

// A vocab.txt as transformers' BertTokenizerFast makes it (its
// BertConverter): BertNormalizer with do_lower_case from a
// tokenizer_config.json beside the file, BertPreTokenizer, [CLS] A [SEP]
// (B [SEP], type 1), the WordPiece decoder, the five specials.
function bertFromVocab(vocabPath) {
  const configPath = path.join(path.dirname(vocabPath), 'tokenizer_config.json');
  const lower = fs.existsSync(configPath)
    ? JSON.parse(fs.readFileSync(configPath, 'utf8')).do_lower_case !== false : true;
  const vocab = {};
  fs.readFileSync(vocabPath, 'utf8').split('\n').forEach((line, i) => {
    const token = line.replace(/\r$/, '');
    if (token) vocab[token] = i;
  });
  const tok = new Tokenizer(hfTokenizers.WordPiece.init(vocab, { unkToken: '[UNK]' }));
  tok.setNormalizer(hfTokenizers.bertNormalizer({ lowercase: lower }));
  tok.setPreTokenizer(hfTokenizers.bertPreTokenizer());
  tok.setPostProcessor(hfTokenizers.bertProcessing(['[SEP]', vocab['[SEP]']], ['[CLS]', vocab['[CLS]']]));
  tok.setDecoder(hfTokenizers.wordPieceDecoder('##', true));
  tok.addSpecialTokens(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
  return tok;
}

const [dump, tokPath, corpusPath, maxLength, strategy] = process.argv.slice(2);
const STRATEGIES = ['LongestFirst', 'OnlyFirst', 'OnlySecond'];

function codePointOffsets(text, byteOffsets) {
  // byte offset -> code point index, over the text's UTF-8.
  const map = new Map();
  let bytes = 0, cps = 0;
  for (const ch of text) {
    map.set(bytes, cps);
    bytes += Buffer.byteLength(ch, 'utf8');
    cps += 1;
  }
  map.set(bytes, cps);
  return byteOffsets.map(([b, e]) => [map.get(b), map.get(e)]);
}

async function main() {
  const cases = fs.readFileSync(corpusPath, 'utf8').split('\n').filter((l) => l).map(JSON.parse);
  const args = [tokPath, corpusPath];
  if (maxLength) args.push(maxLength, String(STRATEGIES.indexOf(strategy || 'LongestFirst')));
  // A dump written in Python (the enc package) runs under /usr/bin/python3.
  const [exe, exeArgs] = dump.endsWith('.py') ? ['/usr/bin/python3', [dump, ...args]] : [dump, args];
  const ours = execFileSync(exe, exeArgs, { maxBuffer: 1 << 28 }).toString('utf8')
    .split('\n').filter((l) => l).map(JSON.parse);
  if (ours.length !== cases.length) throw new Error(`dump gave ${ours.length} lines for ${cases.length} cases`);
  // HF_TOKENIZER: another file for the reference (the test's check that a
  // different tokenizer is caught).
  const hfPath = process.env.HF_TOKENIZER || tokPath;
  const hf = hfPath.endsWith('.txt') ? bertFromVocab(hfPath) : Tokenizer.fromFile(hfPath);
  if (maxLength) hf.setTruncation(Number(maxLength), { strategy: strategy || 'LongestFirst' });
  let equal = 0;
  const diffs = [];
  for (let i = 0; i < cases.length; ++i) {
    const c = cases[i], o = ours[i];
    const special = c.special !== false;
    let want;
    try {
      const e = await hf.encode(c.text, c.pair === undefined ? null : c.pair, { addSpecialTokens: special });
      want = {
        ids: e.getIds(), tokens: e.getTokens(), type_ids: e.getTypeIds(), mask: e.getAttentionMask(),
        offsets: e.getOffsets(), decoded: await hf.decode(e.getIds(), true),
      };
    } catch (err) {
      want = { error: String(err) };
    }
    let got;
    if (o.error !== undefined) {
      got = { error: o.error };
    } else {
      const texts = [c.text, c.pair];
      // Offsets index the input each token came from (encc's sequence ids).
      got = {
        ids: o.ids, tokens: o.tokens, type_ids: o.type_ids, mask: o.mask,
        offsets: o.chars ? o.offsets
          : o.offsets.map((be, j) => codePointOffsets(texts[o.seq[j] === 1 ? 1 : 0], [be])[0]),
        decoded: o.decoded,
      };
    }
    const same = JSON.stringify(got) === JSON.stringify(want.error !== undefined ? { error: got.error } : want) &&
      (want.error === undefined) === (got.error === undefined);
    if (same) ++equal;
    else if (diffs.length < 5) diffs.push({ case: c, want, got });
  }
  console.log(`${cases.length} cases: ${equal} equal`);
  for (const d of diffs) console.log(describe(d));
  process.exit(equal === cases.length ? 0 : 1);
}

// A difference, shortly: the case's start and the first field and index
// where the two disagree.
function describe({ case: c, want, got }) {
  const head = JSON.stringify(c).slice(0, 200);
  if (want.error !== undefined || got.error !== undefined) {
    return `${head}\n  HF: ${want.error || 'ok'}\n  encc: ${got.error || 'ok'}`;
  }
  for (const key of ['ids', 'tokens', 'type_ids', 'mask', 'offsets', 'decoded']) {
    const a = JSON.stringify(want[key]), b = JSON.stringify(got[key]);
    if (a === b) continue;
    if (!Array.isArray(want[key]) || !Array.isArray(got[key])) {
      return `${head}\n  ${key}: HF ${String(a).slice(0, 300)}\n  ${key}: encc ${String(b).slice(0, 300)}`;
    }
    let i = 0;
    while (i < want[key].length && JSON.stringify(want[key][i]) === JSON.stringify(got[key][i])) ++i;
    const around = (v) => JSON.stringify(v.slice(Math.max(0, i - 2), i + 3));
    return `${head}\n  ${key}[${i}] of ${want[key].length} (encc ${got[key].length}): HF ${around(want[key])} encc ${around(got[key])}`;
  }
  return head;
}

main().catch((e) => { console.error(e); process.exit(2); });
