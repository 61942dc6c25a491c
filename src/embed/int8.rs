//! Integer matrix products for the local model's dense layers: activations
//! quantized per row to 8 bits, times the vendored int8 weights, summed
//! exactly in 32-bit integers, then scaled back to float32.
//!
//! The weights are the model's own int8 values with one scale per output
//! (`minilm.rs` reads them); only the activations are rounded here, each
//! row over its own range to 256 steps (what ONNX Runtime's dynamic
//! quantization does per tensor, here per token). The products are
//! integers, so every kernel gives the same sums, bit for bit:
//! - AVX-512 VNNI (`vpdpbusd`, 64 multiply-adds an instruction), where the
//!   CPU has it;
//! - AVX-VNNI (the same instruction on 256 bits), where it has that only;
//! - elsewhere, float32 SGEMM (`matrixmultiply`) on the same integers, in
//!   slices of 512 inputs: every partial sum is then an integer below 2^24,
//!   which float32 holds exactly in any order of addition.
//!
//! A row is rounded over its own range, `x ≈ scale × (q - zero)` with `q`
//! an unsigned byte (VNNI multiplies unsigned by signed bytes):
//! `Σ (q - zero)·w = Σ q·w - zero·Σ w`, and the column sums `Σ w` are taken
//! once when the weights are packed.

/// Columns a block of the packed weights holds (four 16-lane registers).
const BLOCK: usize = 64;

/// Inputs per float product: 512 × 255 × 127 < 2^24 (see the header).
const EXACT_INPUTS: usize = 512;

/// A dense layer `x · w + b` with `w` int8 `[inputs, outputs]` and one
/// scale per output, in the form its kernel reads.
pub(super) struct QLinear {
    form: Form,
    /// `Σ_k w[k][n]`: a row's zero point times this is what the unsigned
    /// offset adds to column `n`.
    column_sums: Vec<i32>,
    scales: Vec<f32>,
    bias: Vec<f32>,
    pub inputs: usize,
    pub outputs: usize,
}

enum Form {
    /// For VNNI: block `j` (columns `64j..64j+64`) is `inputs / 4` groups;
    /// a group is 64 columns × 4 consecutive inputs, a column's adjacent.
    #[cfg(target_arch = "x86_64")]
    Packed(Vec<i8>, Kernel),
    /// For SGEMM: the int8 values as floats, row-major.
    Float(Vec<f32>),
}

/// Reusable buffers of one thread's forward pass.
#[derive(Default)]
pub(super) struct Scratch {
    quantized: Vec<u8>,
    rows: Vec<RowScale>,
    sums: Vec<i32>,
    /// The float kernel's copy of `quantized`, and one slice's products.
    floats: Vec<f32>,
    partial: Vec<f32>,
}

/// How a row was rounded: `x ≈ scale × (q - zero)`.
#[derive(Clone, Copy)]
struct RowScale {
    scale: f32,
    zero: i32,
}

impl QLinear {
    /// `w` (row-major `[inputs, outputs]`) in the form `kernel` reads
    /// (`Kernel::detect()` for this CPU's). `inputs` must be a multiple of 4
    /// and `outputs` of 64, as every MiniLM layer's are.
    pub fn new(kernel: Kernel, w: &[i8], scales: Vec<f32>, bias: Vec<f32>, inputs: usize, outputs: usize) -> Result<QLinear, String> {
        if !inputs.is_multiple_of(4) || !outputs.is_multiple_of(BLOCK) || w.len() != inputs * outputs || scales.len() != outputs || bias.len() != outputs {
            return Err(format!("an int8 layer of shape [{inputs}, {outputs}] with {} weights, {} scales, {} biases", w.len(), scales.len(), bias.len()));
        }
        if !kernel.runs_here() {
            return Err(format!("this CPU cannot run the {kernel:?} kernel"));
        }
        let form = match kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni | Kernel::AvxVnni => {
                let mut packed = Vec::with_capacity(w.len());
                for block in 0..outputs / BLOCK {
                    for group in 0..inputs / 4 {
                        for c in 0..BLOCK {
                            packed.extend((0..4).map(|i| w[(group * 4 + i) * outputs + block * BLOCK + c]));
                        }
                    }
                }
                Form::Packed(packed, kernel)
            }
            _ => Form::Float(w.iter().map(|&v| f32::from(v)).collect()),
        };
        let column_sums = (0..outputs).map(|n| (0..inputs).map(|k| i32::from(w[k * outputs + n])).sum::<i32>()).collect();
        Ok(QLinear { form, column_sums, scales, bias, inputs, outputs })
    }

    /// `out = x · w + b` for `rows` rows of `x`.
    #[inline(always)]
    pub fn forward(&self, x: &[f32], rows: usize, out: &mut [f32], s: &mut Scratch) {
        let (k, n) = (self.inputs, self.outputs);
        quantize_rows(&x[..rows * k], k, &mut s.quantized, &mut s.rows);
        s.sums.clear();
        s.sums.resize(rows * n, 0);
        self.products(&s.quantized, rows, &mut s.sums, &mut s.floats, &mut s.partial);
        // Zipped slices, not indices: no bounds checks, so it is vectorized.
        let columns = self.column_sums.iter().zip(&self.scales).zip(&self.bias);
        for ((o, sums), r) in out[..rows * n].chunks_exact_mut(n).zip(s.sums.chunks_exact(n)).zip(&s.rows) {
            for ((o, &sum), ((&column, &scale), &bias)) in o.iter_mut().zip(sums).zip(columns.clone()) {
                *o = (sum - r.zero * column) as f32 * (r.scale * scale) + bias;
            }
        }
    }

    /// `sums[m][n] = Σ_k a[m][k] · w[k][n]`, `sums` zeroed.
    #[inline(always)]
    fn products(&self, a: &[u8], rows: usize, sums: &mut [i32], floats: &mut Vec<f32>, partial: &mut Vec<f32>) {
        let (k, n) = (self.inputs, self.outputs);
        match &self.form {
            // SAFETY: the packed form is only made for a VNNI kernel that
            // `new` found this CPU can run, with the shapes it checked.
            #[cfg(target_arch = "x86_64")]
            Form::Packed(packed, Kernel::AvxVnni) => unsafe { avx_vnni::products(a, rows, k, packed, n, sums) },
            #[cfg(target_arch = "x86_64")]
            Form::Packed(packed, _) => unsafe { vnni::products(a, rows, k, packed, n, sums) },
            Form::Float(w) => {
                floats.clear();
                floats.extend(a[..rows * k].iter().map(|&v| f32::from(v)));
                partial.clear();
                partial.resize(rows * n, 0.0);
                for k0 in (0..k).step_by(EXACT_INPUTS) {
                    let width = EXACT_INPUTS.min(k - k0);
                    // SAFETY: `floats` holds rows × k, `w` k × n, `partial`
                    // rows × n; the slice starts at input k0 < k.
                    unsafe {
                        matrixmultiply::sgemm(
                            rows,
                            width,
                            n,
                            1.0,
                            floats.as_ptr().add(k0),
                            k as isize,
                            1,
                            w.as_ptr().add(k0 * n),
                            n as isize,
                            1,
                            0.0,
                            partial.as_mut_ptr(),
                            n as isize,
                            1,
                        );
                    }
                    // Exact integers (the header), so the conversion is too.
                    sums.iter_mut().zip(partial.iter()).for_each(|(s, &p)| *s += p as i32);
                }
            }
        }
    }
}

/// Each row of `x` (`k` wide) as `round(x / scale) + zero` in `[0, 255]`:
/// the row's range (with 0 in it) over 255 steps, so 0 is exact and a
/// one-sided row (GELU's outputs) gets all 8 bits.
#[inline(always)]
fn quantize_rows(x: &[f32], k: usize, q: &mut Vec<u8>, rows: &mut Vec<RowScale>) {
    q.clear();
    q.resize(x.len(), 0);
    rows.clear();
    for (row, out) in x.chunks_exact(k).zip(q.chunks_exact_mut(k)) {
        let (lo, hi) = range(row);
        let scale = if hi > lo { (hi - lo) / 255.0 } else { 1.0 };
        let inv = 1.0 / scale;
        // `(y + 0.5)` truncated rounds a y in [0, 255] (half up) without
        // libm's `roundf` call, which the baseline x86-64 target makes.
        let zero = ((-lo * inv).clamp(0.0, 255.0) + 0.5) as u8;
        let offset = f32::from(zero) + 0.5;
        for (o, &v) in out.iter_mut().zip(row) {
            // Not `clamp`: it passes a NaN through, `max` does not.
            #[allow(clippy::manual_clamp)]
            let y = (v * inv + offset).max(0.0).min(255.0);
            // SAFETY: y is in [0, 255]: `max` and `min` return their other
            // operand for a NaN. Unchecked, the conversion is vectorized.
            *o = unsafe { y.to_int_unchecked::<i32>() } as u8;
        }
        rows.push(RowScale { scale, zero: i32::from(zero) });
    }
}

/// The least and greatest of `xs` and 0, in eight lanes (vectorized).
#[inline(always)]
fn range(xs: &[f32]) -> (f32, f32) {
    let (mut lo, mut hi) = ([0f32; 8], [0f32; 8]);
    let chunks = xs.chunks_exact(8);
    for &v in chunks.remainder() {
        lo[0] = lo[0].min(v);
        hi[0] = hi[0].max(v);
    }
    for c in chunks {
        for i in 0..8 {
            lo[i] = lo[i].min(c[i]);
            hi[i] = hi[i].max(c[i]);
        }
    }
    (lo.iter().copied().fold(0.0, f32::min), hi.iter().copied().fold(0.0, f32::max))
}

/// Which loop computes the integer products.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kernel {
    /// AVX-512 with VNNI: `vpdpbusd` on 16 lanes.
    #[cfg(target_arch = "x86_64")]
    Vnni,
    /// AVX-VNNI: `vpdpbusd` on 8 lanes, the same packed weights.
    #[cfg(target_arch = "x86_64")]
    AvxVnni,
    /// float32 SGEMM on the integers, on every target.
    Float,
}

impl Kernel {
    /// Whether this CPU has the instructions the kernel uses.
    fn runs_here(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni => {
                use std::arch::is_x86_feature_detected as has;
                has!("avx512f") && has!("avx512bw") && has!("avx512vnni")
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::AvxVnni => std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("avxvnni"),
            Kernel::Float => true,
        }
    }

    /// Every kernel, fastest first.
    const ALL: &[Kernel] = &[
        #[cfg(target_arch = "x86_64")]
        Kernel::Vnni,
        #[cfg(target_arch = "x86_64")]
        Kernel::AvxVnni,
        Kernel::Float,
    ];

    /// What `tsq doctor` calls it.
    pub fn describe(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni => "AVX-512 VNNI",
            #[cfg(target_arch = "x86_64")]
            Kernel::AvxVnni => "AVX-VNNI",
            Kernel::Float => "float32 SGEMM, no VNNI on this CPU",
        }
    }

    /// The fastest kernel this CPU runs (checked once).
    pub fn detect() -> Kernel {
        use std::sync::OnceLock;
        static FOUND: OnceLock<Kernel> = OnceLock::new();
        *FOUND.get_or_init(|| available().first().copied().unwrap_or(Kernel::Float))
    }
}

/// Every kernel this CPU can run, fastest first (the tests compare them all).
pub(super) fn available() -> Vec<Kernel> {
    Kernel::ALL.iter().copied().filter(|k| k.runs_here()).collect()
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use std::arch::x86_64::*;

    use super::BLOCK;

    /// Rows per tile: `ROWS × 4` accumulators, 4 weight registers and a
    /// broadcast stay in the 32 vector registers.
    const ROWS: usize = 6;

    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn products(a: &[u8], rows: usize, k: usize, packed: &[i8], n: usize, sums: &mut [i32]) {
        let groups = k / 4;
        for block in 0..n / BLOCK {
            let b = packed.as_ptr().add(block * groups * BLOCK * 4);
            let mut m = 0;
            while m + ROWS <= rows {
                tile::<ROWS>(a.as_ptr().add(m * k), k, b, groups, sums.as_mut_ptr().add(m * n + block * BLOCK), n);
                m += ROWS;
            }
            let out = sums.as_mut_ptr().add(m * n + block * BLOCK);
            match rows - m {
                5 => tile::<5>(a.as_ptr().add(m * k), k, b, groups, out, n),
                4 => tile::<4>(a.as_ptr().add(m * k), k, b, groups, out, n),
                3 => tile::<3>(a.as_ptr().add(m * k), k, b, groups, out, n),
                2 => tile::<2>(a.as_ptr().add(m * k), k, b, groups, out, n),
                1 => tile::<1>(a.as_ptr().add(m * k), k, b, groups, out, n),
                _ => {}
            }
        }
    }

    /// `R` rows × 64 columns: reads `R` rows of `a` (`k` apart) and a
    /// block of `groups` groups, writes `R` rows of 64 sums (`n` apart).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tile<const R: usize>(a: *const u8, k: usize, b: *const i8, groups: usize, out: *mut i32, n: usize) {
        let mut acc = [[_mm512_setzero_si512(); 4]; R];
        for g in 0..groups {
            let w = b.add(g * BLOCK * 4);
            let ws = [
                _mm512_loadu_si512(w.cast()),
                _mm512_loadu_si512(w.add(64).cast()),
                _mm512_loadu_si512(w.add(128).cast()),
                _mm512_loadu_si512(w.add(192).cast()),
            ];
            for (r, acc) in acc.iter_mut().enumerate() {
                let x = _mm512_set1_epi32(a.add(r * k + g * 4).cast::<i32>().read_unaligned());
                for (c, w) in acc.iter_mut().zip(ws) {
                    *c = _mm512_dpbusd_epi32(*c, x, w);
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (j, c) in acc.iter().enumerate() {
                _mm512_storeu_si512(out.add(r * n + j * 16).cast(), *c);
            }
        }
    }
}

/// The same products with 256-bit AVX-VNNI (`vpdpbusd` on 8 lanes: Intel
/// CPUs since Alder Lake without AVX-512), over the same packed blocks:
/// each block in two halves of 32 columns, 16 registers.
#[cfg(target_arch = "x86_64")]
mod avx_vnni {
    use std::arch::x86_64::*;

    use super::BLOCK;

    /// Rows per tile: `ROWS × 4` accumulators, `ROWS` broadcasts and a
    /// weight register fit the 16 vector registers.
    const ROWS: usize = 3;

    #[target_feature(enable = "avx2,avxvnni")]
    pub(super) unsafe fn products(a: &[u8], rows: usize, k: usize, packed: &[i8], n: usize, sums: &mut [i32]) {
        let groups = k / 4;
        for block in 0..n / BLOCK {
            for half in 0..2 {
                let b = packed.as_ptr().add(block * groups * BLOCK * 4 + half * 128);
                let column = block * BLOCK + half * 32;
                let mut m = 0;
                while m + ROWS <= rows {
                    tile::<ROWS>(a.as_ptr().add(m * k), k, b, groups, sums.as_mut_ptr().add(m * n + column), n);
                    m += ROWS;
                }
                let out = sums.as_mut_ptr().add(m * n + column);
                match rows - m {
                    2 => tile::<2>(a.as_ptr().add(m * k), k, b, groups, out, n),
                    1 => tile::<1>(a.as_ptr().add(m * k), k, b, groups, out, n),
                    _ => {}
                }
            }
        }
    }

    /// `R` rows × 32 columns (half a block: 128 of each group's 256 bytes).
    #[inline]
    #[target_feature(enable = "avx2,avxvnni")]
    unsafe fn tile<const R: usize>(a: *const u8, k: usize, b: *const i8, groups: usize, out: *mut i32, n: usize) {
        let mut acc = [[_mm256_setzero_si256(); 4]; R];
        for g in 0..groups {
            let w = b.add(g * BLOCK * 4);
            let mut xs = [_mm256_setzero_si256(); R];
            for (r, x) in xs.iter_mut().enumerate() {
                *x = _mm256_set1_epi32(a.add(r * k + g * 4).cast::<i32>().read_unaligned());
            }
            for j in 0..4 {
                let wj = _mm256_loadu_si256(w.add(j * 32).cast());
                for (acc, x) in acc.iter_mut().zip(xs) {
                    acc[j] = _mm256_dpbusd_avx_epi32(acc[j], x, wj);
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (j, c) in acc.iter().enumerate() {
                _mm256_storeu_si256(out.add(r * n + j * 8).cast(), *c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (no dependency).
    fn numbers(seed: u64, len: usize) -> Vec<i64> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (s >> 33) as i64
            })
            .collect()
    }

    /// Every kernel this CPU has gives the plain sums exactly, on row
    /// counts that are and are not multiples of the tile, at the extremes
    /// of both ranges.
    #[test]
    fn the_kernels_give_the_exact_integer_products() {
        let shapes = [(1, 4, 64, false), (5, 8, 64, false), (13, 384, 128, false), (6, 1536, 64, false), (128, 384, 192, false), (7, 1536, 128, true)];
        for (rows, k, n, extreme) in shapes {
            let mut a: Vec<u8> = numbers(rows as u64, rows * k).into_iter().map(|v| (v % 256) as u8).collect();
            let mut w: Vec<i8> = numbers(k as u64 + 7, k * n).into_iter().map(|v| ((v % 255) - 127) as i8).collect();
            w[0] = -127;
            w[1] = 127;
            if extreme {
                // Sums of ±255 × 127 × 1,536: past 2^24, where a float
                // product over every input at once would round.
                a.fill(255);
                w.iter_mut().enumerate().for_each(|(i, v)| *v = if (i % n) % 2 == 0 { 127 } else { -127 });
            }
            let mut want = vec![0i32; rows * n];
            for m in 0..rows {
                for j in 0..n {
                    want[m * n + j] = (0..k).map(|i| i32::from(a[m * k + i]) * i32::from(w[i * n + j])).sum();
                }
            }
            for kernel in available() {
                let layer = QLinear::new(kernel, &w, vec![1.0; n], vec![0.0; n], k, n).unwrap();
                let mut got = vec![0i32; rows * n];
                layer.products(&a, rows, &mut got, &mut Vec::new(), &mut Vec::new());
                assert!(got == want, "{kernel:?} on {rows}×{k}×{n}");
            }
        }
    }

    /// The float result: within a rounding step of each row's scale of the
    /// float product, with the bias added.
    #[test]
    fn a_layer_is_the_float_product_within_the_rounding() {
        let (rows, k, n) = (7, 64, 64);
        let x: Vec<f32> = numbers(3, rows * k).into_iter().map(|v| (v % 2001 - 1000) as f32 / 250.0).collect();
        let w: Vec<i8> = numbers(4, k * n).into_iter().map(|v| ((v % 255) - 127) as i8).collect();
        let scales: Vec<f32> = (0..n).map(|j| 0.01 + j as f32 * 1e-4).collect();
        let bias: Vec<f32> = (0..n).map(|j| j as f32 / 10.0).collect();
        let layer = QLinear::new(Kernel::detect(), &w, scales.clone(), bias.clone(), k, n).unwrap();
        let mut out = vec![0f32; rows * n];
        layer.forward(&x, rows, &mut out, &mut Scratch::default());
        for m in 0..rows {
            let max = x[m * k..(m + 1) * k].iter().fold(0f32, |a, v| a.max(v.abs()));
            for j in 0..n {
                let exact: f32 = (0..k).map(|i| x[m * k + i] * f32::from(w[i * n + j]) * scales[j]).sum::<f32>() + bias[j];
                // Each of k inputs is off by at most half a step (the
                // range is at most 2 max, over 255 steps) times |w| ≤ 127.
                let bound = k as f32 * 0.5 * (2.0 * max / 255.0) * 127.0 * scales[j];
                assert!((out[m * n + j] - exact).abs() <= bound, "row {m} column {j}: {} against {exact}", out[m * n + j]);
            }
        }
    }

    /// Not a check: the kernels' speed on one feed-forward product
    /// (128 tokens × 384 × 1,536) beside float32 SGEMM, printed.
    /// `cargo test --release --lib kernel_speeds -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn kernel_speeds() {
        let (rows, k, n) = (128, 384, 1536);
        let a: Vec<u8> = numbers(1, rows * k).into_iter().map(|v| (v % 256) as u8).collect();
        let w: Vec<i8> = numbers(2, k * n).into_iter().map(|v| ((v % 255) - 127) as i8).collect();
        let mut sums = vec![0i32; rows * n];
        let time = |f: &mut dyn FnMut()| {
            let t = std::time::Instant::now();
            for _ in 0..20 {
                f();
            }
            t.elapsed().as_secs_f64() * 1000.0 / 20.0
        };
        for kernel in available() {
            let layer = QLinear::new(kernel, &w, vec![1.0; n], vec![0.0; n], k, n).unwrap();
            let (mut floats, mut partial) = (Vec::new(), Vec::new());
            let ms = time(&mut || layer.products(&a, rows, &mut sums, &mut floats, &mut partial));
            eprintln!("{kernel:?}: {ms:.3} ms");
        }
        let (x, wf): (Vec<f32>, Vec<f32>) = (a.iter().map(|&v| f32::from(v)).collect(), w.iter().map(|&v| f32::from(v)).collect());
        let mut out = vec![0f32; rows * n];
        let ms = time(&mut || unsafe {
            matrixmultiply::sgemm(rows, k, n, 1.0, x.as_ptr(), k as isize, 1, wf.as_ptr(), n as isize, 1, 0.0, out.as_mut_ptr(), n as isize, 1)
        });
        eprintln!("float32 sgemm: {ms:.3} ms");
    }

    #[test]
    fn a_shape_the_kernels_cannot_take_is_refused() {
        assert!(QLinear::new(Kernel::Float, &[0; 3 * 64], vec![1.0; 64], vec![0.0; 64], 3, 64).is_err());
        assert!(QLinear::new(Kernel::Float, &[0; 4 * 32], vec![1.0; 32], vec![0.0; 32], 4, 32).is_err());
    }
}
