#!/usr/bin/env bash
# Seeds DecodeFuzz with every image the tests keep: the public corpora, the photos and
# the bad inputs (decode-corpus/ is libFuzzer's working corpus; it is not committed).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p decode-corpus
find ../Tests/Fixtures/corpora ../Tests/Fixtures/photos ../Tests/Fixtures/bad -type f \
  ! -name '*.md' ! -name '*.tsv' ! -name 'LICENSE*' -exec cp {} decode-corpus/ \;
