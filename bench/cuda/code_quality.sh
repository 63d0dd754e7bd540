#!/usr/bin/env bash
# GPU code quality without a GPU (issue 19, item 6; docs/bench/gpu-code-quality.md): Loom's CUDA
# kernels for bench_cuda's workloads, compiled by NVRTC exactly as the CUDA backend compiles them
# (bench/cuda/code_quality.cpp), beside the handwritten kernels of bench/cuda/kernels.cu compiled
# by nvcc for the same architecture. Prints, as Markdown: resource usage (registers, spills,
# stack, shared and constant memory) and the SASS instruction mix of each kernel's hot loop per
# element. Needs the CUDA toolkit (nvcc, NVRTC) and cuobjdump; no GPU.
#
#   bench/cuda/code_quality.sh                        # builds cuda_code_quality in build/, sm_90
#   bench/cuda/code_quality.sh --no-build --build-dir build --out /tmp/cq --arch 90
#
# cuobjdump: $CUOBJDUMP, else on PATH, else beside nvcc, else from the PyPI package
# nvidia-cuda-cuobjdump (pip install nvidia-cuda-cuobjdump) when python3 can import it.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=$repo/build
out=
arch=90
build=1
while [ $# -gt 0 ]; do
    case $1 in
    --build-dir) build_dir=$(realpath -m "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "code_quality.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$out" ] || out=$build_dir/code-quality

nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || for c in "${CUDA_HOME:-}" /usr/local/cuda; do [ -x "$c/bin/nvcc" ] && nvcc=$c/bin/nvcc && break; done
[ -n "$nvcc" ] || { echo "code_quality.sh: nvcc not found (install the CUDA toolkit or put it on PATH)" >&2; exit 1; }
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || true)}
[ -n "$cuobjdump" ] || { [ -x "$(dirname "$nvcc")/cuobjdump" ] && cuobjdump=$(dirname "$nvcc")/cuobjdump; } || true
if [ -z "$cuobjdump" ]; then
    cuobjdump=$(python3 -c 'import nvidia, os, glob
for p in nvidia.__path__:
    for f in glob.glob(os.path.join(p, "cu*", "bin", "cuobjdump")): print(f); raise SystemExit' 2>/dev/null || true)
fi
[ -n "$cuobjdump" ] || { echo "code_quality.sh: cuobjdump not found: set CUOBJDUMP, or pip install nvidia-cuda-cuobjdump" >&2; exit 1; }

if [ $build = 1 ]; then
    cmake --build "$build_dir" --target cuda_code_quality -j1 >/dev/null
fi
tool=$build_dir/bench/cuda_code_quality
[ -x "$tool" ] || { echo "code_quality.sh: $tool is missing (configure with the CUDA backend and nvcc, then build it)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
"$tool" "$out" --arch "$arch" >"$out/tool.log"
# The handwritten kernels as bench_cuda's build compiles them (CUDA_ARCHITECTURES 90-real: nvcc's
# defaults, contraction on), with ptxas's report.
"$nvcc" -arch=sm_"$arch" -cubin -std=c++17 -Xptxas -v -o "$out/handwritten.cubin" "$repo/bench/cuda/kernels.cu" \
    >"$out/handwritten.ptxas.txt" 2>&1
for cubin in "$out"/*.cubin; do
    base=${cubin%.cubin}
    "$cuobjdump" -sass "$cubin" >"$base.sass"
    "$cuobjdump" --dump-resource-usage "$cubin" >"$base.res"
done
# --ptxas-options=-v must not change the code: the verbose compile's SASS equals nvrtc_compile's.
for v in "$out"/*.verbose.sass; do
    cmp -s "$v" "${v%.verbose.sass}.sass" || { echo "code_quality.sh: ${v##*/}: SASS differs from the backend's" >&2; exit 1; }
done

{
    echo "<!-- bench/cuda/code_quality.sh --arch $arch. nvcc: $("$nvcc" --version | grep release). $(cat "$out/versions.txt"). cuobjdump: $("$cuobjdump" --version | grep release) -->"
    python3 - "$out" <<'PY'
import collections, os, re, subprocess, sys

out = sys.argv[1]

# ---- SASS -----------------------------------------------------------------------------------
INSN = re.compile(r'/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;')

def parse_sass(path):
    """{function name: [(addr, pred, opcode, operands)]} for every function of a cuobjdump -sass file."""
    funcs, cur = {}, None
    for line in open(path):
        m = re.search(r'Function : (\S+)', line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSN.search(line)
        if not m or cur is None:
            continue
        text = m.group(2).strip()
        pred = ''
        if text.startswith('@'):
            pred, text = text.split(None, 1)
        parts = text.split(None, 1)
        op, rest = parts[0], (parts[1] if len(parts) > 1 else '')
        if op == 'NOP':
            continue
        cur.append((int(m.group(1), 16), pred, op, rest))
    for name, insns in funcs.items():  # the padding branch to itself after the last EXIT
        while insns and insns[-1][2] == 'BRA' and branch_target(insns[-1]) == insns[-1][0]:
            insns.pop()
    return funcs

def branch_target(i):
    m = re.search(r'0x([0-9a-f]+)', i[3])
    return int(m.group(1), 16) if m else None

def width(op):
    for tag, b in (('.128', 16), ('.64', 8), ('.U16', 2), ('.S16', 2), ('.U8', 1), ('.S8', 1)):
        if tag in op:
            return b
    return 4

def category(op, rest):
    base = op.split('.')[0]
    if base in ('LDG', 'STG', 'LDS', 'STS', 'LDL', 'STL', 'LD', 'ST', 'BAR', 'SHFL', 'CALL', 'RET'):
        return base
    if base in ('FFMA', 'FMUL', 'FADD'):
        return base
    if base in ('BRA', 'EXIT', 'BSSY', 'BSYNC', 'WARPSYNC', 'BREAK', 'ENDCOLLECTIVE', 'JMP'):
        return 'control'
    if base in ('ISETP', 'FSETP', 'PLOP3', 'VOTE', 'UISETP', 'UPLOP3'):
        return 'compare'
    if base.startswith('U') or base in ('S2UR',):
        return 'uniform'
    if op.startswith('IMAD.MOV') or (op == 'IMAD.U32' and re.match(r'\w+, RZ, RZ, ', rest)):
        return 'move'
    if base in ('IMAD', 'IADD3', 'LEA', 'SHF', 'VIADD', 'LOP3', 'IABS', 'SEL', 'IMNMX', 'IADD', 'ISCADD', 'SGXT',
                'BMSK', 'PRMT', 'POPC', 'FLO', 'BREV', 'IDP'):
        return 'int'
    if base in ('MOV', 'S2R', 'LDC', 'CS2R', 'HFMA2', 'R2UR', 'MOVM'):
        return 'move'
    if base[0] in 'FHMD' or base in ('I2F', 'F2I', 'MUFU', 'F2F', 'I2FP'):
        return 'fp other'
    return 'other'

def loops(insns):
    return [(branch_target(i), i[0]) for i in insns
            if i[2] == 'BRA' and branch_target(i) is not None and branch_target(i) <= i[0]]

def gbytes(path, kind):
    return sum(width(i[2]) for i in path if i[2].startswith(kind))

def walk(insns, start, stop_addr):
    """One pass through a region, as an element in the interior takes it: a forward branch falls
    through (the in-range case of a bounds test or clamp), except one that only skips a call (the
    call into the 64-bit division routine, taken when an operand does not fit in 32 bits: the
    skipped block holds a CALL and no conditional branch), which is taken. Stops at the region's
    back edge (stop_addr) or at an unpredicated EXIT; a call itself is not followed."""
    at = {i[0]: k for k, i in enumerate(insns)}
    k, path = at[start], []
    for _ in range(100000):
        if k >= len(insns):
            break
        i = insns[k]
        path.append(i)
        if i[0] == stop_addr or (i[2] == 'EXIT' and not i[1]):
            break
        if i[2] == 'BRA':
            t = branch_target(i)
            if not i[1]:
                k = at[t]
                continue
            if t > i[0]:
                skipped = [j for j in insns if i[0] < j[0] < t]
                if any(j[2].startswith('CALL') for j in skipped) and not any(j[1] and j[2] == 'BRA' for j in skipped):
                    k = at[t]
                    continue
        k += 1
    return path

def hot_region(insns):
    """The innermost loop that moves the most global bytes per iteration (a loop holding another
    that moves global memory is passed over), or the whole function when no loop does."""
    found = []
    for a, b in loops(insns):
        body = [i for i in insns if a <= i[0] <= b]
        moved = gbytes(body, 'LDG') + gbytes(body, 'STG')
        if moved:
            found.append((moved, a, b))
    inner = [x for x in found if not any(y is not x and x[1] <= y[1] and y[2] <= x[2] for y in found)]
    if inner:
        best = max(inner, key=lambda x: x[0])
        return 'loop 0x%04x-0x%04x' % (best[1], best[2]), walk(insns, best[1], best[2])
    return 'whole kernel', walk(insns, insns[0][0], None)

# ---- resources --------------------------------------------------------------------------------
def resources(path):
    """{function: {REG, STACK, SHARED, LOCAL, CONSTANT[0]}} from cuobjdump --dump-resource-usage."""
    res, cur = {}, None
    for line in open(path):
        m = re.search(r'Function (\S+):', line)
        if m:
            cur = m.group(1)
            continue
        if cur and 'REG:' in line:
            res[cur] = dict(re.findall(r'(\w+(?:\[\d+\])?):(\d+)', line))
    return res

def ptxas(path):
    """{function: [spill stores, spill loads, barriers, declared shared bytes]} from a ptxas -v report."""
    out, cur = {}, None
    for line in open(path):
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            cur = m.group(1)
        m = re.search(r'(\d+) bytes spill stores, (\d+) bytes spill loads', line)
        if m and cur:
            out[cur] = [int(m.group(1)), int(m.group(2)), 0, 0]
        m = re.search(r'used (\d+) barriers', line)
        if m and cur in out:
            out[cur][2] = int(m.group(1))
        m = re.search(r'(\d+) bytes smem', line)
        if m and cur in out:
            out[cur][3] = int(m.group(1))
    return out

def demangle(names):
    text = subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True, text=True).stdout.split('\n')
    return dict(zip(names, text))

# ---- the kernels ------------------------------------------------------------------------------
manifest = {}
for line in open(os.path.join(out, 'manifest.tsv')):
    if line.startswith('#'):
        continue
    name, role, load, store, what = line.rstrip('\n').split('\t')
    manifest[name] = (role, int(load), int(store), what)

hand_sass = parse_sass(os.path.join(out, 'handwritten.sass'))
hand_res = resources(os.path.join(out, 'handwritten.res'))
hand_ptxas = ptxas(os.path.join(out, 'handwritten.ptxas.txt'))
pretty = demangle(list(hand_sass))

def hand(pattern):
    hits = [m for m in hand_sass if re.search(pattern, pretty[m])]
    assert len(hits) == 1, (pattern, hits)
    return hits[0]

# CUB's DeviceScanKernel on sm_90 for float: AgentScanPolicy<128 threads, 24 items> (the
# sm90_tuning<float> of cub/device/dispatch/tuning/tuning_scan.cuh); one tile per block, no
# loop over tiles. Its shared memory, 128 * 24 * 4 + 16 bytes, agrees.
CUB_ITEMS = 24
hand_kernels = {  # handwritten kernel: (mangled name, bytes per element: ('LDG'|'STG', bytes))
    'map copy': (hand(r'map_kernel<\(cuda_baseline::map_op\)0>'), ('STG', 4)),
    'map scale': (hand(r'map_kernel<\(cuda_baseline::map_op\)1>'), ('STG', 4)),
    'map saxpy': (hand(r'map_kernel<\(cuda_baseline::map_op\)2>'), ('STG', 4)),
    'map triad': (hand(r'map_kernel<\(cuda_baseline::map_op\)3>'), ('STG', 4)),
    'map chain8': (hand(r'map_kernel<\(cuda_baseline::map_op\)4>'), ('STG', 4)),
    'map issue4_chain4': (hand(r'map_kernel<\(cuda_baseline::map_op\)5>'), ('STG', 4)),
    'stencil2d_kernel': (hand(r'stencil2d_kernel'), ('STG', 4)),
    'reduce_partials<true> (dot)': (hand(r'reduce_partials<true>'), ('LDG', 8)),
    'reduce_partials<false> (sum)': (hand(r'reduce_partials<false>'), ('LDG', 4)),
    'reduce_final': (hand(r'reduce_final'), ('LDG', 4)),
    'CUB DeviceScanKernel': (hand(r'DeviceScanKernel'), None),
    'CUB DeviceScanInitKernel': (hand(r'DeviceScanInitKernel'), None),
}

rows = {}  # label -> metrics

def metrics(label, insns, res, spills, per, static=False, items=None):
    if static:
        region, path = 'whole kernel, static (all paths)', list(insns)
    else:
        region, path = hot_region(insns)
    if items:
        elems = items
    else:
        kind, b = per
        elems = gbytes(path, kind) / b if b else 0
    c = collections.Counter(category(i[2], i[3]) for i in path)
    ldg = collections.Counter(width(i[2]) for i in path if i[2].startswith('LDG'))
    stg = collections.Counter(width(i[2]) for i in path if i[2].startswith('STG'))
    wide = sum(1 for i in path if re.search(r'\.X\b|\.HI\.X|\.EX\b|U64', i[2]))
    divs = sum(1 for i in path if i[2] == 'I2F.U32.RP')
    calls_total = sum(1 for i in insns if i[2].startswith('CALL'))
    rows[label] = dict(region=region, path=path, elems=elems, c=c, ldg=ldg, stg=stg, wide=wide, divs=divs,
                       calls=calls_total, res=res, spills=spills, insns=len(insns))

for name, (role, load, store, what) in manifest.items():
    funcs = parse_sass(os.path.join(out, name + '.sass'))
    res = resources(os.path.join(out, name + '.res'))['loom_kernel']
    sp = ptxas(os.path.join(out, name + '.ptxas.txt'))['loom_kernel']
    per = ('STG', store) if role == 'map' or name == 'loom_scan_pass3' else ('LDG', load)
    metrics(name, funcs['loom_kernel'], res, sp, per)
for label, (mangled, per) in hand_kernels.items():
    cub = per is None
    metrics('hand: ' + label, hand_sass[mangled], hand_res[mangled], hand_ptxas[mangled], per, static=cub,
            items=CUB_ITEMS if 'DeviceScanKernel' in label else (1 if cub else None))

# ---- tables -----------------------------------------------------------------------------------
def f(x):
    return ('%.2f' % x).rstrip('0').rstrip('.') if x else '0'

def widths(counter, elems):
    return ' + '.join('%s x%d' % (f(n / elems), 8 * w) for w, n in sorted(counter.items(), reverse=True)) or '0'

print('\n### Kernels\n')
print('| kernel | what |')
print('| --- | --- |')
for name, (role, load, store, what) in manifest.items():
    print('| %s | %s |' % (name, what.replace('|', '\\|')))
for label, (mangled, per) in hand_kernels.items():
    short = re.sub(r'cuda_baseline::|\(anonymous namespace\)::|cub::CUB_\d+_SM_\d+::|detail::', '', pretty[mangled])
    short = re.sub(r'\([^()]*\)$', '', short)
    print('| hand: %s | kernels.cu: `%s` |' % (label, short[:120]))

print('\n### Resource usage (ptxas -v, cuobjdump --dump-resource-usage)\n')
print('Shared: the bytes the kernel declares (ptxas); cuobjdump\'s SHARED adds the 1 KiB sm_90 reserves per block. '
      'Constant bank 0: parameters and driver constants (cuobjdump).\n')
print('| kernel | registers | spill stores / loads (bytes) | stack | local | shared | constant bank 0 | barriers |')
print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for label, r in rows.items():
    s = r['res']
    print('| %s | %s | %d / %d | %s | %s | %s | %s | %d |' % (label, s['REG'], r['spills'][0], r['spills'][1], s['STACK'],
          s['LOCAL'], r['spills'][3], s['CONSTANT[0]'], r['spills'][2]))

print('\n### Hot loop, per element (SASS)\n')
print('Counts are instructions on one pass through the region divided by the elements it handles '
      '(global bytes stored, or loaded for a reduction, over the bytes of one element). '
      'int: IMAD/IADD3/LEA/SHF/VIADD/LOP3/SEL (moves apart); 64-bit: instructions with a carry-in '
      '(.X), a 64-bit compare (.EX) or a 64-bit shift (U64).\n')
print('| kernel | region | elements / pass | instructions | LDG (count x bits) | STG | FFMA | FMUL | FADD | int | of which 64-bit | compare | control | BAR | LDS+STS | moves+uniform | other | int divisions | CALLs in kernel |')
print('| --- | --- | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for label, r in rows.items():
    e = r['elems'] or 1
    c = r['c']
    other = sum(v for k, v in c.items() if k in ('fp other', 'other', 'SHFL', 'LD', 'ST', 'LDL', 'STL', 'CALL', 'RET'))
    print('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |' % (
        label, r['region'], f(r['elems']), f(len(r['path']) / e), widths(r['ldg'], e), widths(r['stg'], e),
        f(c['FFMA'] / e), f(c['FMUL'] / e), f(c['FADD'] / e), f(c['int'] / e), f(r['wide'] / e), f(c['compare'] / e),
        f(c['control'] / e), f(c['BAR'] / e), f((c['LDS'] + c['STS']) / e), f((c['move'] + c['uniform']) / e),
        f(other / e), f(r['divs'] / e), r['calls']))
PY
} | tee "$out/report.md"
