#!/bin/bash
# tests/test_perft_slow.sh -- the slow perft lines (tests/fixtures/perft/*_slow.epd)
# through the runner of tests/test_perft.c: Gounki depth 6, Gobs short depth 5, ...
exec "$BUILD/tests/test_perft" --slow "$SRC/tests/fixtures/perft"
