#!/usr/bin/env bash
# clang-tidy (.clang-tidy at the root) over Loom's sources, with the compile commands of a build
# directory that scripts/test.sh configured. A finding in .clang-tidy's WarningsAsErrors set fails
# the run; the others are printed as advice.
#   bash scripts/tidy.sh                     # the .cpp files of src/ and tools/ this change touches
#                                            # (against origin/main; in a clone of main, against the
#                                            # commit .ci/tidy-base names, the last landing CI checked
#                                            # whole: move it forward at a landing; every file when
#                                            # the clone lacks it)
#   bash scripts/tidy.sh src/fusion/*.cpp    # these files
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LOOM_TIDY_BUILD:-$root/build-test}
cd "$root"
if ! command -v clang-tidy > /dev/null; then
    echo "tidy: clang-tidy is not installed (apt-get install clang-tidy)" >&2
    exit 1
fi
if [ ! -f "$build/compile_commands.json" ]; then
    echo "tidy: $build/compile_commands.json is missing; run scripts/test.sh (or configure with" \
         "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON) first" >&2
    exit 1
fi
if [ $# -gt 0 ]; then
    files=("$@")
else
    base=$(git merge-base HEAD origin/main 2> /dev/null || true)
    if [ -z "$base" ] || [ "$base" = "$(git rev-parse HEAD)" ]; then
        # A clone of main itself (CI): the files changed since the last landing that CI checked,
        # which .ci/tidy-base names, when the clone has that commit; else every file.
        recorded=$(cat "$root/.ci/tidy-base" 2> /dev/null || true)
        if [ -n "$recorded" ] && git cat-file -e "$recorded^{commit}" 2> /dev/null; then
            base=$recorded
        fi
    fi
    if [ -n "$base" ] && [ "$base" != "$(git rev-parse HEAD)" ]; then
        mapfile -t files < <(git diff --name-only --diff-filter=d "$base" -- 'src/*.cpp' 'tools/*.cpp')
    else
        mapfile -t files < <(git ls-files 'src/*.cpp' 'tools/*.cpp')
    fi
fi
if [ ${#files[@]} -eq 0 ]; then
    echo "tidy: no source files to check"
    exit 0
fi
echo "tidy: ${#files[@]} files"
# Compiler warnings are the build's business (-Werror there), not this pass's.
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet --extra-arg=-Wno-error
