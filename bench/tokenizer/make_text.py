#!/usr/bin/python3
"""Writes the benchmark's mixed text: about SIZE MB of lines (default 10),
deterministic: English-like sentences of common and rare words, numbers,
punctuation, URLs, and one line in six from the multilingual corpus of
test/tokenizer (accents, CJK, Thai, Arabic, emoji, control characters).

  make_text.py OUT.txt [SIZE_MB]
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "test", "tokenizer", "Inputs", "corpus.jsonl")

WORDS = ("the of and to in is you that it he was for on are as with his they at be this have "
         "from or one had by word but not what all were we when your can said there use an each "
         "which she do how their if will up other about out many then them these so some her "
         "would make like him into time has look two more write go see number no way could people "
         "my than first water been call who oil its now find long down day did get come made may "
         "part tokenization embeddings transformer retrieval semantic search encoder quantization "
         "unbelievably internationalization electroencephalography hyperparameter").split()


def main():
    out, size = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    rng = random.Random(1)
    multilingual = [json.loads(l)["text"] for l in open(CORPUS, encoding="utf-8")]
    multilingual = [t.replace("\n", " ").replace("\r", " ") for t in multilingual if t.strip()]
    target = int(size * 1e6)
    written = 0
    with open(out, "w", encoding="utf-8") as f:
        while written < target:
            if rng.random() < 1 / 6:
                line = rng.choice(multilingual)[:400]
            else:
                n = rng.randint(5, 60)
                words = [rng.choice(WORDS) for _ in range(n)]
                if rng.random() < 0.3:
                    words[0] = words[0].capitalize()
                if rng.random() < 0.2:
                    words.insert(rng.randint(0, n), str(rng.randint(0, 100000)))
                if rng.random() < 0.1:
                    words.insert(rng.randint(0, n), "https://example.com/p?q=%d" % rng.randint(0, 999))
                line = " ".join(words) + rng.choice([".", "!", "?", ",", ";", ""])
            f.write(line + "\n")
            written += len(line.encode("utf-8")) + 1


if __name__ == "__main__":
    main()
