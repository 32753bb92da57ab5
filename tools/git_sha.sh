#!/bin/sh
# The short commit of this checkout for result files, with "-dirty" when tracked files differ from it
# (what ran is then not exactly that commit: e.g. a device copy of a working tree), "unknown" outside git.
# SPDX-License-Identifier: GPL-3.0-or-later
cd "$(dirname "$0")/.." || exit 0
sha=$(git rev-parse --short HEAD 2>/dev/null) || { echo unknown; exit 0; }
git diff --quiet HEAD -- 2>/dev/null || sha="$sha-dirty"
echo "$sha"
