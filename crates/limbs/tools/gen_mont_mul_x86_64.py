#!/usr/bin/env python3
"""Generates src/backend/x86_64_adx/gen/unrolled.rs: fully unrolled x86_64 Montgomery
multiplications for fixed limb counts (CIOS with mulx and the adcx/adox
carry chains, the accumulator held in registers).

Usage: python3 tools/gen_mont_mul_x86_64.py > src/backend/x86_64_adx/gen/unrolled.rs
(`.ci/run` checks that the file matches this script's output.)

Per outer step i:
  t += a * b[i]   (CF chain: low halves into t[j]; OF chain: high halves into t[j+1])
  q  = t[0] * m_inv
  t += q * m      (same two chains; t[0] becomes 0)
  rotate the register names so that t[j] <- t[j+1] (the zeroed t[0] becomes
  the new top limb).
Then one constant-time conditional subtraction of m, and the result leaves
in registers (declared outputs): written through a pointer, the compiler
copied it on with vector loads that the store buffer cannot forward, and a
chain of operations waited for memory (benches/RESULTS.md, "Field kernels
that return their limbs in registers"). From 6 limbs the sum waits in a
scratch array while the registers try subtracting m; its pointer arrives in
rdx and waits in a stack slot until the last row has read a, when a's
register takes it.

Registers: up to 5 limbs, the accumulator t[0..=n+1] fits in registers
beside the three pointers, m_inv, two temporaries and rdx (13 registers).
From 6 limbs the block keeps m_inv and the pointer to b on the stack (b[i] is
loaded through it once per step) and holds t[n+1], the overflow of each row
(at most 1 after the reduction row), in a stack slot, so the accumulator
needs n+1 registers and the block n+6 in all. LLVM can hand out 14 registers
even when rbp is kept as the frame pointer, which covers 8 limbs.

From 9 limbs the pointers to a and m go on the stack as well, and one
register takes whichever of them the next row reads (a load per row, which
L1 serves at once): n+5 registers, 14 at 9 limbs.
"""
import sys

SIZES = [4, 6, 7, 8, 9]  # 7 and 9 for 448- and 521-bit prime fields; 5 would fit too
IND = " " * 12


def e32(r):
    """The 32-bit name of an accumulator register (writing it zeroes the top half)."""
    return r[:-1] + ":e}" if r.startswith("{") else "e" + r[1:]


def gen(n, minv_one=False):
    out = []
    emit = lambda s: out.append(IND + s)
    stack = n > 5
    shared = n > 8  # a and m through one register, reloaded per row
    named = n + 1 if stack else n + 2
    regs = [f"{{t{k}}}" for k in range(named)]
    ptr = {"a": "{src}", "m": "{src}"} if shared else {"a": "{a}", "m": "{m}"}

    def load(src):
        """Points the shared register at `src` (a or m), when there is one."""
        if shared:
            emit(f'"mov {{src}}, [rsp + {24 if src == "a" else 32}]",  // the pointer to {src}')

    # The pointer to the scratch array arrives in rdx (b[0] takes rdx next)
    # and waits on the stack until the end, when a's register (free by
    # then) takes it; at 4 limbs there is none.
    scratch_slot = 40 if shared else 24 if stack else 0
    if stack:
        emit(f'"push rdx",           // the pointer to scratch, at [rsp + {scratch_slot}]')

    def load_scratch():
        emit(f'"mov {ptr["a"]}, [rsp + {scratch_slot}]",  // the pointer to scratch')

    if stack:
        if shared:
            emit('"push {t3}",          // the pointer to m, at [rsp + 32]')
            emit('"push {t2}",          // the pointer to a, at [rsp + 24]')
        emit('"push {t1}",          // the pointer to b, at [rsp + 16]')
        emit('"push {t0}",          // m_inv, at [rsp + 8]')
        emit('"push {t0}",          // the overflow slot, at [rsp]')
        minv = "qword ptr [rsp + 8]"
    else:
        minv = "{m_inv}"

    def row(src):
        load(src)
        emit('"xor {lo:e}, {lo:e}",  // CF = OF = 0')
        for j in range(n):
            emit(f'"mulx {{hi}}, {{lo}}, [{ptr[src]} + {8 * j}]",')
            emit(f'"adcx {regs[j]}, {{lo}}",')
            emit(f'"adox {regs[j + 1]}, {{hi}}",')
        emit('"mov {lo:e}, 0",      // a zero that leaves the flags alone')
        emit(f'"adcx {regs[n]}, {{lo}}",')

    for i in range(n):
        emit(f'// step {i}: t += a * b[{i}], then t += q * m and shift down a limb')
        if stack:
            emit('"mov rdx, [rsp + 16]",')
            emit(f'"mov rdx, [rdx + {8 * i}]",')
        else:
            emit(f'"mov rdx, [{{b}} + {8 * i}]",')
        if i == 0:
            # t is still zero: t = a * b[0] needs one carry chain and no
            # additions into t, and cannot overflow t[n].
            load("a")
            emit(f'"mulx {regs[1]}, {regs[0]}, [{ptr["a"]}]",')
            for j in range(1, n):
                emit(f'"mulx {regs[j + 1]}, {{lo}}, [{ptr["a"]} + {8 * j}]",')
                emit(f'"{"add" if j == 1 else "adc"} {regs[j]}, {{lo}}",')
            emit(f'"adc {regs[n]}, 0",')
            if stack:
                emit('"mov qword ptr [rsp], 0",')
        else:
            row("a")
            # The row's overflow (CF + OF) goes to the top limb or the slot.
            if stack:
                emit('"mov {hi:e}, 0",')
                emit('"adcx {hi}, {lo}",')
                emit('"adox {hi}, {lo}",')
                emit('"mov [rsp], {hi}",')
            else:
                emit(f'"adcx {regs[n + 1]}, {{lo}}",')
                emit(f'"adox {regs[n + 1]}, {{lo}}",')
        emit(f'"mov rdx, {regs[0]}",')
        if not minv_one:
            emit(f'"imul rdx, {minv}",')
        row("m")
        if stack:
            # t[0] is now zero: it becomes the new top limb, taking the
            # overflow of both rows (at most 1 in all).
            emit(f'"adcx {regs[0]}, [rsp]",')
            emit(f'"adox {regs[0]}, {{lo}}",')
            regs = regs[1:] + regs[:1]
        else:
            emit(f'"adcx {regs[n + 1]}, {{lo}}",')
            emit(f'"adox {regs[n + 1]}, {{lo}}",')
            # t[0] is now zero: it becomes the new top limb.
            regs = regs[1:] + regs[:1]

    emit("// t[0..n] + 2^(64n) t[n] is below 2m: subtract m once if it fits.")
    if stack:
        # No spare registers: keep t in scratch while the registers take t - m
        # (`mov` leaves the flags alone, so the shared pointer can switch
        # between the borrow chain and the moves that use it).
        load_scratch()
        for j in range(n):
            emit(f'"mov [{ptr["a"]} + {8 * j}], {regs[j]}",')
        load("m")
        for j in range(n):
            op = "sub" if j == 0 else "sbb"
            emit(f'"{op} {regs[j]}, [{ptr["m"]} + {8 * j}]",')
        emit(f'"sbb {regs[n]}, 0",  // borrow out: the value was below m')
        if shared:
            load_scratch()
        for j in range(n):
            emit(f'"cmovc {regs[j]}, [{ptr["a"]} + {8 * j}]",')
    else:
        # t - m in the registers no longer needed.
        tmps = ["{lo}", "{hi}", "{b}", "{m_inv}"]
        assert n <= len(tmps)
        for j in range(n):
            emit(f'"mov {tmps[j]}, {regs[j]}",')
        for j in range(n):
            op = "sub" if j == 0 else "sbb"
            emit(f'"{op} {tmps[j]}, [{{m}} + {8 * j}]",')
        emit(f'"sbb {regs[n]}, 0",  // borrow out: the value was below m')
        for j in range(n):
            emit(f'"cmovnc {regs[j]}, {tmps[j]}",')
    if stack:
        emit(f'"add rsp, {scratch_slot + 8}",')
    results = {regs[j]: j for j in range(n)}

    def result(k, kind):
        """Operand t{k}'s declaration: `kind` (`out(reg)`, or `inout(reg) x`),
        taking limb j of the result if the block leaves it there."""
        target = f"r[{results[f'{{t{k}}}']}]" if f"{{t{k}}}" in results else "_"
        return f"{IND}t{k} = {kind} => {target}," if kind.startswith("inout") else \
            f"{IND}t{k} = {kind} {target},"

    body = "\n".join(out)
    if shared:
        ops = [result(0, "inout(reg) m_inv"), result(1, "inout(reg) b.as_ptr()")]
        ops += [result(2, "inout(reg) a.as_ptr()"), result(3, "inout(reg) m.as_ptr()")]
        ops += [result(k, "out(reg)") for k in range(4, named)]
        ops += [f"{IND}src = out(reg) _,"]
        options = "options()"
        safety_stack = (
            "It pushes six limbs and pops\n    // them before it ends, so the stack pointer is restored."
        )
        b_op = ""
    elif stack:
        ops = [result(0, "inout(reg) m_inv"), result(1, "inout(reg) b.as_ptr()")]
        ops += [result(k, "out(reg)") for k in range(2, named)]
        options = "options()"
        safety_stack = (
            "It pushes four limbs and pops\n    // them before it ends, so the stack pointer is restored."
        )
        b_op = ""
    else:
        ops = [f"{IND}m_inv = inout(reg) m_inv => _,"]
        ops += [result(k, "out(reg)") for k in range(named - 1)]
        ops += [result(named - 1, "inout(reg) 0 as Limb") + "  // t[n+1] starts at zero"]
        options = "options(nostack)"
        safety_stack = "It does not touch the stack."
        b_op = f"{IND}b = inout(reg) b.as_ptr() => _,\n"
    ops = "\n".join(ops)
    pointers = "" if shared else f"{IND}a = inout(reg) a.as_ptr() => _,\n{b_op}{IND}m = in(reg) m.as_ptr(),\n"
    name, note = (f"mont_mul_{n}_minv1", MINV_ONE_NOTE) if minv_one else (f"mont_mul_{n}", "")
    # With stack (6 limbs and more) the sum waits in `scratch` while the
    # registers try subtracting m; at 4 limbs no memory is written.
    scratch = f"\n    scratch: &mut [Limb; {n}]," if stack else ""
    held = " (`scratch` holds the sum\n/// while the registers try subtracting `m`)" if stack else ""
    writes = ("writes scratch, which cannot alias them (it is borrowed\n"
              "    // mutably), only after its last read of a") if stack else "writes no memory"
    rdx = 'inout("rdx") scratch.as_mut_ptr() => _' if stack else 'out("rdx") _'
    return f'''
/// `a * b * 2^-{64 * n} mod m` for {n}-limb operands: unrolled CIOS, fully
/// reduced, returned in registers{held}. `m` odd, `m_inv = -m^-1 mod 2^64`,
/// `a * b < m * 2^{64 * n}`.{note}
#[inline]
pub(crate) fn {name}(
    _cpu: Adx,{scratch}
    a: &[Limb; {n}],
    b: &[Limb; {n}],
    m: &[Limb; {n}],
    m_inv: Limb,
) -> [Limb; {n}] {{
    let mut r = [0; {n}];
    // SAFETY: `_cpu` proves BMI2 and ADX (an `Adx` exists only then). The
    // block reads a, b and m ({n} limbs each, by their array types) and
    // {writes}; every named register it changes is declared.
    // {safety_stack}
    unsafe {{
        asm!(
{body}
{pointers}{ops}
{IND}lo = out(reg) _,
{IND}hi = out(reg) _,
{IND}{rdx},
{IND}{options},
        );
    }}
    r
}}
'''


# The variants for moduli whose lowest limb is 2^64 − 1 (P-256's, and any
# m ≡ −1 mod 2^64), where m_inv = 1 and each row's quotient is the limb itself.
MINV_ONE_NOTE = """
/// For `m_inv = 1` (`m ≡ −1 mod 2^64`, as P-256's prime): each row's
/// quotient is the limb itself, without the `imul` on the rows' serial path."""


def subtract_if_fits(emit, t):
    """t[4..8] (with rax, the bit above) minus m (at rdi) if that does not
    borrow, selected with cmov: the end of the 4-limb squares."""
    for k in range(4):
        emit(f'"mov {t[k]}, {t[4 + k]}",')
    for k in range(4):
        emit(f'"{"sub" if k == 0 else "sbb"} {t[k]}, [rdi + {8 * k}]",')
    emit('"sbb rax, 0",  // borrow out: the value was below m')
    for k in range(4):
        emit(f'"cmovnc {t[4 + k]}, {t[k]}",')


def gen_sqr4_square(t):
    """a² into t0..t7 (a at rsi): the six cross products, then doubled with
    the four squares in one pass. Uses rax, rcx and rdx."""
    out = []

    def emit(s):
        out.append(IND + s)

    emit("// the cross products a[i] a[j], i < j, into t1..t6")
    emit('"mov rdx, [rsi]",')
    emit(f'"mulx {t[2]}, {t[1]}, [rsi + 8]",')
    emit(f'"mulx {t[3]}, rax, [rsi + 16]",')
    emit(f'"add {t[2]}, rax",')
    emit(f'"mulx {t[4]}, rax, [rsi + 24]",')
    emit(f'"adc {t[3]}, rax",')
    emit(f'"adc {t[4]}, 0",')
    emit('"mov rdx, [rsi + 8]",')
    emit(f'"xor {t[5]}d, {t[5]}d",  // t5 = 0, CF = OF = 0')
    emit('"mulx rcx, rax, [rsi + 16]",')
    emit(f'"adcx {t[3]}, rax",')
    emit(f'"adox {t[4]}, rcx",')
    emit('"mulx rcx, rax, [rsi + 24]",')
    emit(f'"adcx {t[4]}, rax",')
    emit(f'"adox {t[5]}, rcx",')
    emit(f'"adc {t[5]}, 0",  // the OF chain has ended')
    emit('"mov rdx, [rsi + 16]",')
    emit(f'"mulx {t[6]}, rax, [rsi + 24]",')
    emit(f'"add {t[5]}, rax",')
    emit(f'"adc {t[6]}, 0",')
    emit("// t = 2 t + the squares a[i]^2 at limb 2i (CF: doubling, OF: squares)")
    emit(f'"xor {t[7]}d, {t[7]}d",  // t7 = 0, CF = OF = 0')
    for i in range(4):
        emit(f'"mov rdx, [rsi + {8 * i}]",')
        if i == 0:
            emit(f'"mulx rcx, {t[0]}, rdx",')
        else:
            emit('"mulx rcx, rax, rdx",')
            emit(f'"adcx {t[2 * i]}, {t[2 * i]}",')
            emit(f'"adox {t[2 * i]}, rax",')
        emit(f'"adcx {t[2 * i + 1]}, {t[2 * i + 1]}",')
        emit(f'"adox {t[2 * i + 1]}, rcx",')
    return out


def gen_sqr4(minv_one=False):
    """The 4-limb Montgomery square, every limb in a register: the square
    a² into t0..t7 (six cross products, doubled with the four squares in one
    pass, as gen_field_x86_64.py's squares do), then four reduction rows,
    row i adding q_i·m at limb i and leaving its carry limb in t[i], which
    it has zeroed (as the row kernels do), then the top half plus those
    carries and one cmov-selected subtraction of m. Ten mulx for the square
    against sixteen for a product. The result leaves in registers."""
    t = [f"r{8 + k}" for k in range(8)]
    out = []

    def emit(s):
        out.append(IND + s)

    emit('"push rdx",           // m_inv, at [rsp]')
    out += gen_sqr4_square(t)
    for i in range(4):
        emit(f"// reduction row {i}: t[{i}..{i + 4}] += q m, its carry limb into t[{i}]")
        emit(f'"mov rdx, {t[i]}",')
        if not minv_one:
            emit('"imul rdx, [rsp]",')
        emit('"xor eax, eax",  // CF = OF = 0')
        hs = ["rsi", "rcx"]
        for j in range(4):
            emit(f'"mulx {hs[j % 2]}, rax, [rdi + {8 * j}]",')
            emit(f'"adcx {t[i + j]}, rax",')
            if j > 0:
                emit(f'"adox {t[i + j]}, {hs[(j - 1) % 2]}",')
        emit('"mov eax, 0",  // a zero that leaves the flags alone')
        emit(f'"adcx {hs[1]}, rax",')
        emit(f'"adox {hs[1]}, rax",')
        emit(f'"mov {t[i]}, {hs[1]}",')
    emit("// the top half plus the carries (below 2m), then minus m if that fits")
    emit(f'"add {t[4]}, {t[0]}",')
    for k in range(1, 4):
        emit(f'"adc {t[4 + k]}, {t[k]}",')
    emit('"mov eax, 0",')
    emit('"adc eax, 0",')
    subtract_if_fits(emit, t)
    emit('"add rsp, 8",')
    body = "\n".join(out)
    clobbers = "\n".join(f'{IND}out("{reg}") _,' for reg in t[:4])
    outputs = "\n".join(f'{IND}lateout("{reg}") r[{k}],' for k, reg in enumerate(t[4:]))
    name, note = ("mont_sqr_4_minv1", MINV_ONE_NOTE) if minv_one else ("mont_sqr_4", "")
    params = ["_cpu: Adx", "a: &[Limb; 4]", "m: &[Limb; 4]", "m_inv: Limb"]
    signature = f"pub(crate) fn {name}({', '.join(params)}) -> [Limb; 4]"
    if len(signature) + 2 > 100:  # rustfmt's width: one parameter a line
        signature = (f"pub(crate) fn {name}(\n" + "".join(f"    {p},\n" for p in params)
                     + ") -> [Limb; 4]")
    return f'''
/// `a² * 2^-256 mod m` for 4-limb operands, fully reduced: the square
/// with each cross product once, then the reduction, every limb in a
/// register, and the result returned in them. `m` odd,
/// `m_inv = -m^-1 mod 2^64`, `a² < m * 2^256`.{note}
#[inline]
{signature} {{
    let mut r = [0; 4];
    // SAFETY: `_cpu` proves BMI2 and ADX (an `Adx` exists only then). The
    // block reads a and m (4 limbs each, by their array types) and writes
    // no memory but its own stack slot; every register it changes is
    // declared. It pushes one limb and pops it before it ends, so the
    // stack pointer is restored.
    unsafe {{
        asm!(
{body}
{IND}inout("rsi") a.as_ptr() => _,
{IND}in("rdi") m.as_ptr(),
{IND}inout("rdx") m_inv => _,
{IND}out("rcx") _,
{IND}out("rax") _,
{clobbers}
{outputs}
{IND}options(),
        );
    }}
    r
}}
'''


def p256_reduction_step(emit, q, hi_temp, targets, carry):
    """One reduction step modulo P-256's prime (see gen_sqr4_p256): with
    q = t[i] in register q, adds q·p / 2^64 to targets (the limbs i+1 to
    i+4) and the carry out to carry. Uses rax, rcx, rdx and hi_temp."""
    emit(f'"mov rax, {q}",')
    emit('"shl rax, 32",  // q << 32')
    emit(f'"mov rcx, {q}",')
    emit('"shr rcx, 32",  // q >> 32')
    emit(f'"mov rdx, {q}",')
    emit('"sub rdx, rax",  // the low limb of q (2^64 − 2^32 + 1)')
    emit(f'"mov {hi_temp}, {q}",')
    emit(f'"sbb {hi_temp}, rcx",  // its high limb')
    if carry == q:
        emit(f'"mov {q}, 0",  // a zero that leaves the flags alone')
    emit(f'"add {targets[0]}, rax",')
    emit(f'"adc {targets[1]}, rcx",')
    emit(f'"adc {targets[2]}, rdx",')
    emit(f'"adc {targets[3]}, {hi_temp}",')
    emit(f'"adc {carry}, 0",')


def gen_mul4_p256():
    """The Montgomery multiplication modulo P-256's prime: CIOS as gen()'s,
    each a·b[i] row with `mulx` and the two carry chains, each reduction
    step by shifts and additions (p256_reduction_step)."""
    t = [f"r{8 + k}" for k in range(6)]
    out = []

    def emit(s):
        out.append(IND + s)

    for i in range(4):
        emit(f"// row {i}: t += a b[{i}] (CF: low halves, OF: high halves)")
        for k in range(5 if i == 0 else 0):
            emit(f'"xor {t[k]}d, {t[k]}d",')
        emit(f'"xor {t[5]}d, {t[5]}d",  // t5 = 0, CF = OF = 0')
        emit(f'"mov rdx, [r14 + {8 * i}]",')
        for j in range(4):
            emit(f'"mulx rcx, rax, [rsi + {8 * j}]",')
            emit(f'"adcx {t[j]}, rax",')
            emit(f'"adox {t[j + 1]}, rcx",')
        emit('"mov eax, 0",')
        emit(f'"adcx {t[4]}, rax",')
        emit(f'"adox {t[5]}, rax",')
        emit(f'"adcx {t[5]}, rax",')
        emit(f"// reduction step {i}: q = t0; t1..t5 += q p / 2^64")
        p256_reduction_step(emit, t[0], "r15", t[1:5], t[5])
        t = t[1:] + t[:1]
    emit("// below 2p: minus p if that fits")
    temps = ["rax", "rcx", "rdx", "r15"]
    for k in range(4):
        emit(f'"mov {temps[k]}, {t[k]}",')
        emit(f'"{"sub" if k == 0 else "sbb"} {temps[k]}, [rdi + {8 * k}]",')
    emit(f'"sbb {t[4]}, 0",  // borrow out: the value was below p')
    for k in range(4):
        emit(f'"cmovnc {t[k]}, {temps[k]}",')
    body = "\n".join(out)
    clobbers = "\n".join(f'{IND}out("{reg}") _,' for reg in sorted(t[4:]))
    outputs = "\n".join(f'{IND}lateout("{reg}") r[{k}],' for k, reg in enumerate(t[:4]))
    return f'''
/// `a * b * 2^-256 mod p` for P-256's prime `p` (`m`, passed in), fully
/// reduced: the products' rows with `mulx`, each reduction step by shifts
/// and additions (no multiplication), every limb in a register, and the
/// result returned in them. `a * b < p * 2^256`.
#[inline]
pub(crate) fn p256_mul(_cpu: Adx, a: &[Limb; 4], b: &[Limb; 4], m: &[Limb; 4]) -> [Limb; 4] {{
    let mut r = [0; 4];
    // SAFETY: `_cpu` proves BMI2 and ADX (an `Adx` exists only then). The
    // block reads a, b and m (4 limbs each, by their array types) and
    // writes no memory; every register it changes is declared. It does not
    // touch the stack.
    unsafe {{
        asm!(
{body}
{IND}in("rsi") a.as_ptr(),
{IND}in("r14") b.as_ptr(),
{IND}in("rdi") m.as_ptr(),
{IND}out("rcx") _,
{IND}out("rax") _,
{IND}out("rdx") _,
{IND}out("r15") _,
{clobbers}
{outputs}
{IND}options(nostack),
        );
    }}
    r
}}
'''


def gen_sqr4_p256():
    """The Montgomery square modulo P-256's prime, p = 2^256 − 2^224 +
    2^192 + 2^96 − 1: the square as gen_sqr4's, then a reduction without
    multiplications. m_inv = 1, so q_i = t[i], and q·p = q·2^96 − q +
    q·(2^64 − 2^32 + 1)·2^192: adding it clears t[i], adds q << 32 and
    q >> 32 at limbs i+1 and i+2, and q·(2^64 − 2^32 + 1) = (q − (q >> 32)
    − borrow):(q − (q << 32)) at limbs i+3 and i+4, each step a few
    single-cycle instructions where a row of `mulx` waits for the product.
    Row i's carry, which belongs at limb i+5, waits in t[i] (cleared, as
    gen_sqr4's rows leave theirs) and joins the top half at the end."""
    t = [f"r{8 + k}" for k in range(8)]
    out = []

    def emit(s):
        out.append(IND + s)

    square = gen_sqr4_square(t)
    out += square
    for i in range(4):
        emit(f"// reduction step {i}: q = t[{i}]; t[{i + 1}..{i + 4}] += q p / 2^64,")
        emit(f"// the carry (limb {i + 5}) into t[{i}]")
        p256_reduction_step(emit, t[i], "rsi", t[i + 1:i + 5], t[i])
    emit("// the top half plus the carries (below 2p), then minus p if that fits")
    emit(f'"add {t[5]}, {t[0]}",')
    emit(f'"adc {t[6]}, {t[1]}",')
    emit(f'"adc {t[7]}, {t[2]}",')
    emit(f'"adc {t[3]}, 0",')
    emit(f'"mov rax, {t[3]}",')
    subtract_if_fits(emit, t)
    body = "\n".join(out)
    clobbers = "\n".join(f'{IND}out("{reg}") _,' for reg in t[:4])
    outputs = "\n".join(f'{IND}lateout("{reg}") r[{k}],' for k, reg in enumerate(t[4:]))
    return f'''
/// `r = a² * 2^-256 mod p` for P-256's prime `p` (`m`, passed in), fully
/// reduced: the square with each cross product once, then a reduction
/// that uses the prime's form (shifts and additions, no multiplication),
/// every limb in a register. `a² < p * 2^256`.
#[inline]
pub(crate) fn p256_sqr(_cpu: Adx, a: &[Limb; 4], m: &[Limb; 4]) -> [Limb; 4] {{
    let mut r = [0; 4];
    // SAFETY: `_cpu` proves BMI2 and ADX (an `Adx` exists only then). The
    // block reads a and m (4 limbs each, by their array types) and writes r,
    // which cannot alias them (it is borrowed mutably), only at its end;
    // every register it changes is declared. It pushes one limb and pops
    // it before it ends, so the stack pointer is restored.
    unsafe {{
        asm!(
{body}
{IND}inout("rsi") a.as_ptr() => _,
{IND}in("rdi") m.as_ptr(),
{IND}out("rdx") _,
{IND}out("rcx") _,
{IND}out("rax") _,
{clobbers}
{outputs}
{IND}options(nostack),
        );
    }}
    r
}}
'''


header = '''//! Fully unrolled Montgomery multiplications for the sizes where a row
//! kernel's entry and exit would dominate, and the 4-limb Montgomery square.
//!
//! GENERATED by `tools/gen_mont_mul_x86_64.py`; do not edit by hand (`.ci/run`
//! checks that this file matches the script).

use core::arch::asm;

use crate::Limb;
use crate::backend::x86_64_adx::Adx;
'''
sys.stdout.write(header)
for n in SIZES:
    sys.stdout.write(gen(n))
sys.stdout.write(gen(4, minv_one=True))
sys.stdout.write(gen_sqr4())
sys.stdout.write(gen_sqr4(minv_one=True))
sys.stdout.write(gen_mul4_p256())
sys.stdout.write(gen_sqr4_p256())
