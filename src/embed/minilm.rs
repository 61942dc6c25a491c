//! all-MiniLM-L6-v2's forward pass in Rust: a 6-layer BERT encoder
//! (hidden 384, 12 heads, feed-forward 1,536, exact GELU, LayerNorm ε 1e-12)
//! over the vendored quantized weights, mean-pooled and L2-normalized.
//!
//! The weights come from `vendor-models/minilm/model-w4.onnx` (`onnx.rs`
//! reads it): the vendored int8 model with its token table made 4-bit by
//! `vendor-models/derive_w4.py`. The encoder is weight-only int8, each
//! matrix `Cast` and `Mul`ed by its scales in the graph. A linear layer is
//! found by its bias's name (`…attention.self.query.bias`): the `Add` that
//! takes the bias, the `MatMul` before it, and the `Mul`/`Cast` pair behind
//! that `MatMul`'s weight.
//!
//! The dense layers run in integers (`int8.rs`): each token's activations
//! rounded to 8 bits, times the int8 weights as they are vendored. That is
//! where the time goes, and VNNI does four times the work of a float
//! instruction there. Attention's two products stay float32, through
//! `matrixmultiply` (a pure-Rust SGEMM, already linked through LanceDB).
//! `tests` checks the vectors against ONNX Runtime's float ones
//! (`fixtures/embed/minilm-reference.json`, `vendor-models/reference.py`).
//! Each sequence runs alone, so nothing is padded; a batch is split across
//! threads.

use std::collections::HashMap;

use super::int8::{Kernel, QLinear, Scratch};
use super::onnx::{self, Node};

const HIDDEN: usize = 384;
const HEADS: usize = 12;
const HEAD: usize = HIDDEN / HEADS;
const FFN: usize = 1536;
const LAYERS: usize = 6;
const EPS: f32 = 1e-12;
/// Positions the model has embeddings for.
pub const MAX_TOKENS: usize = 512;

/// A dense layer as vendored: `x · (w × scales) + b`, `w` int8 row-major
/// `[inputs, outputs]`, one scale per output.
struct Linear {
    w: Vec<i8>,
    scales: Vec<f32>,
    b: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Linear {
    fn pack(self, kernel: Kernel) -> Result<QLinear, String> {
        QLinear::new(kernel, &self.w, self.scales, self.b, self.inputs, self.outputs)
    }
}

struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

struct Layer {
    /// Query, key and value side by side: `[384, 1152]`.
    qkv: QLinear,
    attention_out: QLinear,
    attention_norm: Norm,
    intermediate: QLinear,
    output: QLinear,
    output_norm: Norm,
}

pub struct MiniLm {
    words: Words,
    positions: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

impl MiniLm {
    /// Builds the model from the vendored ONNX file. Errors name the weight
    /// that could not be found or had the wrong shape.
    pub fn load(model: &'static [u8]) -> Result<MiniLm, String> {
        MiniLm::load_for(model, Kernel::detect())
    }

    fn load_for(model: &'static [u8], kernel: Kernel) -> Result<MiniLm, String> {
        let graph = onnx::parse(model)?;
        let w = Weights::new(&graph);
        let words = w.words("inner.embeddings.word_embeddings.weight")?;
        let (pos_q, pos_scales) = w.table("inner.embeddings.position_embeddings.weight")?;
        if pos_scales.len() < MAX_TOKENS {
            return Err(format!("the position table has {} rows, expected {MAX_TOKENS}", pos_scales.len()));
        }
        let positions = pos_q.iter().enumerate().map(|(i, &q)| f32::from(q) * pos_scales[i / HIDDEN]).collect();
        let token_type = w.floats("inner.embeddings.token_type_embeddings.weight", 2 * HIDDEN)?[..HIDDEN].to_vec();
        let mut layers = Vec::with_capacity(LAYERS);
        for i in 0..LAYERS {
            let p = format!("inner.encoder.layer.{i}");
            let q = w.linear(&format!("{p}.attention.self.query"))?;
            let k = w.linear(&format!("{p}.attention.self.key"))?;
            let v = w.linear(&format!("{p}.attention.self.value"))?;
            layers.push(Layer {
                qkv: side_by_side(&[q, k, v]).pack(kernel)?,
                attention_out: w.linear(&format!("{p}.attention.output.dense"))?.pack(kernel)?,
                attention_norm: w.norm(&format!("{p}.attention.output.LayerNorm"))?,
                intermediate: w.linear(&format!("{p}.intermediate.dense"))?.pack(kernel)?,
                output: w.linear(&format!("{p}.output.dense"))?.pack(kernel)?,
                output_norm: w.norm(&format!("{p}.output.LayerNorm"))?,
            });
        }
        let shapes = [(HIDDEN, 3 * HIDDEN), (HIDDEN, HIDDEN), (HIDDEN, FFN), (FFN, HIDDEN)];
        for l in &layers {
            for (lin, want) in [&l.qkv, &l.attention_out, &l.intermediate, &l.output].into_iter().zip(shapes) {
                if (lin.inputs, lin.outputs) != want {
                    return Err(format!("a layer has shape {:?}, expected {want:?}", (lin.inputs, lin.outputs)));
                }
            }
        }
        let embedding_norm = w.norm("inner.embeddings.LayerNorm")?;
        Ok(MiniLm { words, positions, token_type, embedding_norm, layers })
    }

    pub fn vocabulary(&self) -> usize {
        self.words.rows
    }

    /// Mean-pooled, normalized vectors of token sequences (each at most
    /// `MAX_TOKENS`, every id within the vocabulary), split across up to
    /// `threads` threads.
    pub fn embed(&self, seqs: &[Vec<u32>], threads: usize) -> Vec<Vec<f32>> {
        let threads = threads.clamp(1, seqs.len().max(1));
        if threads == 1 {
            let mut scratch = Scratch::default();
            return seqs.iter().map(|s| self.sequence(s, &mut scratch)).collect();
        }
        // Sequences differ in length: each thread takes the next one.
        let next = std::sync::atomic::AtomicUsize::new(0);
        let mut out = vec![Vec::new(); seqs.len()];
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let (mut done, mut scratch) = (Vec::new(), Scratch::default());
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(seq) = seqs.get(i) else { return done };
                            done.push((i, self.sequence(seq, &mut scratch)));
                        }
                    })
                })
                .collect();
            for w in workers {
                for (i, v) in w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)) {
                    out[i] = v;
                }
            }
        });
        out
    }

    /// One sequence's vector. The element-wise loops (GELU, softmax,
    /// LayerNorm, rounding) are compiled three times on x86-64: for the
    /// baseline target, for AVX2 and for AVX-512, chosen at run time. All do
    /// the same float operations in the same order (Rust never fuses a
    /// multiply and an add, and the sums are in eight lanes everywhere), so
    /// the vectors are the same; only the lanes per instruction differ.
    fn sequence(&self, ids: &[u32], scratch: &mut Scratch) -> Vec<f32> {
        #[cfg(target_arch = "x86_64")]
        match lanes() {
            // SAFETY: the CPU has the feature.
            Lanes::Avx512 => return unsafe { self.sequence_avx512(ids, scratch) },
            Lanes::Avx2 => return unsafe { self.sequence_avx2(ids, scratch) },
            Lanes::Sse2 => {}
        }
        self.sequence_body(ids, scratch)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn sequence_avx2(&self, ids: &[u32], scratch: &mut Scratch) -> Vec<f32> {
        self.sequence_body(ids, scratch)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn sequence_avx512(&self, ids: &[u32], scratch: &mut Scratch) -> Vec<f32> {
        self.sequence_body(ids, scratch)
    }

    #[inline(always)]
    fn sequence_body(&self, ids: &[u32], scratch: &mut Scratch) -> Vec<f32> {
        let t = ids.len().min(MAX_TOKENS);
        let mut out = vec![0f32; HIDDEN];
        if t == 0 {
            return out;
        }
        let mut x = vec![0f32; t * HIDDEN];
        for (pos, (&id, row)) in ids.iter().zip(x.chunks_exact_mut(HIDDEN)).enumerate() {
            self.words.row(id as usize, row);
            let position = &self.positions[pos * HIDDEN..(pos + 1) * HIDDEN];
            for (j, r) in row.iter_mut().enumerate() {
                *r += position[j] + self.token_type[j];
            }
        }
        layer_norm(&mut x, &self.embedding_norm);
        let mut qkv = vec![0f32; t * 3 * HIDDEN];
        let mut scores = vec![0f32; t * t];
        let mut context = vec![0f32; t * HIDDEN];
        let mut hidden = vec![0f32; t * HIDDEN];
        let mut wide = vec![0f32; t * FFN];
        for layer in &self.layers {
            layer.qkv.forward(&x, t, &mut qkv, scratch);
            let stride = 3 * HIDDEN as isize;
            for h in 0..HEADS {
                let (q, k, v) = (h * HEAD, HIDDEN + h * HEAD, 2 * HIDDEN + h * HEAD);
                // scores = Q_h · K_hᵀ / √32
                // SAFETY: every index sgemm forms lies within qkv (t rows of
                // 1,152) and scores (t × t), as the strides say.
                unsafe {
                    matrixmultiply::sgemm(
                        t,
                        HEAD,
                        t,
                        1.0 / (HEAD as f32).sqrt(),
                        qkv.as_ptr().add(q),
                        stride,
                        1,
                        qkv.as_ptr().add(k),
                        1,
                        stride,
                        0.0,
                        scores.as_mut_ptr(),
                        t as isize,
                        1,
                    );
                }
                scores.chunks_exact_mut(t).for_each(softmax);
                // context_h = scores · V_h
                // SAFETY: as above, with context's t rows of 384.
                unsafe {
                    matrixmultiply::sgemm(
                        t,
                        t,
                        HEAD,
                        1.0,
                        scores.as_ptr(),
                        t as isize,
                        1,
                        qkv.as_ptr().add(v),
                        stride,
                        1,
                        0.0,
                        context.as_mut_ptr().add(h * HEAD),
                        HIDDEN as isize,
                        1,
                    );
                }
            }
            layer.attention_out.forward(&context, t, &mut hidden, scratch);
            add_norm(&mut x, &hidden, &layer.attention_norm);
            layer.intermediate.forward(&x, t, &mut wide, scratch);
            wide.iter_mut().for_each(|v| *v = gelu(*v));
            layer.output.forward(&wide, t, &mut hidden, scratch);
            add_norm(&mut x, &hidden, &layer.output_norm);
        }
        for row in x.chunks_exact(HIDDEN) {
            out.iter_mut().zip(row).for_each(|(o, v)| *o += v);
        }
        out.iter_mut().for_each(|v| *v /= t as f32);
        super::normalize(&mut out);
        out
    }
}

/// The widest vector unit this x86-64 CPU has for the element-wise loops
/// (checked once).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lanes {
    Sse2,
    Avx2,
    Avx512,
}

#[cfg(target_arch = "x86_64")]
fn lanes() -> Lanes {
    use std::sync::OnceLock;
    static FOUND: OnceLock<Lanes> = OnceLock::new();
    *FOUND.get_or_init(|| {
        if std::arch::is_x86_feature_detected!("avx512f") {
            Lanes::Avx512
        } else if std::arch::is_x86_feature_detected!("avx2") {
            Lanes::Avx2
        } else {
            Lanes::Sse2
        }
    })
}

#[inline(always)]
fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    row.iter_mut().for_each(|v| *v = exp(*v - max));
    let inv = 1.0 / sum(row);
    row.iter_mut().for_each(|v| *v *= inv);
}

/// A sum in eight interleaved lanes (one order on every target, and a loop
/// the compiler vectorizes, where a running total is one add at a time).
#[inline(always)]
pub(super) fn sum(xs: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let chunks = xs.chunks_exact(8);
    let rest: f32 = chunks.remainder().iter().sum();
    for c in chunks {
        for (l, v) in lanes.iter_mut().zip(c) {
            *l += v;
        }
    }
    lanes.iter().sum::<f32>() + rest
}

/// Exact GELU, `x·Φ(x)`, with erf from Abramowitz and Stegun 7.1.26
/// (absolute error below 1.5e-7, under float32's own rounding here): one
/// `exp` and no branch but the sign, where libm's `erff` branches by range.
#[inline(always)]
fn gelu(x: f32) -> f32 {
    let z = (x / std::f32::consts::SQRT_2).abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t * (0.254_829_6 + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    let erf = 1.0 - poly * exp(-z * z);
    0.5 * x * (1.0 + erf.copysign(x))
}

/// `e^x` for the x ≤ 0 that softmax and GELU give (and any x below 88),
/// within 2 ulp: `2^n · e^r` with `|r| ≤ ln 2 / 2` and Cephes' `expf`
/// polynomial for `e^r`. Plain arithmetic with no call and no branch, so a
/// loop of it is vectorized, where libm's `expf` is a call per element
/// (softmax and GELU take 2.4 million of them per 128-token window).
#[inline(always)]
fn exp(x: f32) -> f32 {
    // 1.5 × 2^23: adding it rounds to an integer, kept in the low bits.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let shifted = x * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let p = ((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r + 0.166_666_65) * r + 0.5;
    let e = p * r * r + r + 1.0;
    let two_n = f32::from_bits(shifted.to_bits().wrapping_sub(ROUND.to_bits()).wrapping_add(127) << 23);
    e * two_n
}

/// `x = norm(x + y)`, row by row.
#[inline(always)]
fn add_norm(x: &mut [f32], y: &[f32], n: &Norm) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
    layer_norm(x, n);
}

#[inline(always)]
fn layer_norm(x: &mut [f32], n: &Norm) {
    let mut centered = [0f32; HIDDEN];
    for row in x.chunks_exact_mut(HIDDEN) {
        let mean = sum(row) / HIDDEN as f32;
        centered.iter_mut().zip(row.iter()).for_each(|(c, v)| *c = (v - mean) * (v - mean));
        let var = sum(&centered) / HIDDEN as f32;
        let inv = 1.0 / (var + EPS).sqrt();
        for ((v, &gamma), &beta) in row.iter_mut().zip(&n.gamma).zip(&n.beta) {
            *v = (*v - mean) * inv * gamma + beta;
        }
    }
}

/// Concatenates layers that read the same input along their outputs.
fn side_by_side(parts: &[Linear]) -> Linear {
    let inputs = parts[0].inputs;
    let outputs = parts.iter().map(|p| p.outputs).sum();
    let mut w = Vec::with_capacity(inputs * outputs);
    for i in 0..inputs {
        for p in parts {
            w.extend_from_slice(&p.w[i * p.outputs..(i + 1) * p.outputs]);
        }
    }
    let scales = parts.iter().flat_map(|p| p.scales.iter().copied()).collect();
    Linear { w, scales, b: parts.iter().flat_map(|p| p.b.iter().copied()).collect(), inputs, outputs }
}

/// The token table, 4-bit (`vendor-models/derive_w4.py`): row `r` packs
/// columns `2j` and `2j + 1` into byte `j` (low nibble first), and nibble
/// `n` stands for `(n - 8) × scales[r][c / 32]`. Borrowed from the binary
/// (5.9 MB); a row is widened on lookup.
struct Words {
    packed: &'static [u8],
    scales: Vec<f32>,
    rows: usize,
}

const WORD_GROUP: usize = 32;

impl Words {
    /// Writes row `id` (clamped to the table) into `out`.
    fn row(&self, id: usize, out: &mut [f32]) {
        let id = id.min(self.rows - 1);
        let packed = &self.packed[id * HIDDEN / 2..(id + 1) * HIDDEN / 2];
        let scales = &self.scales[id * HIDDEN / WORD_GROUP..(id + 1) * HIDDEN / WORD_GROUP];
        for (j, pair) in out.chunks_exact_mut(2).enumerate() {
            let scale = scales[2 * j / WORD_GROUP];
            let byte = packed[j];
            pair[0] = (f32::from(byte & 15) - 8.0) * scale;
            pair[1] = (f32::from(byte >> 4) - 8.0) * scale;
        }
    }
}

/// An int8 initializer (borrowed from the `'static` model), its shape, and
/// the scales the graph multiplies it by.
struct Quantized {
    values: &'static [i8],
    dims: Vec<usize>,
    scales: Vec<f32>,
}

/// The graph's weights, found through its wiring.
struct Weights<'g> {
    graph: &'g onnx::Graph<'static>,
    producer: HashMap<&'static str, &'g Node<'static>>,
    /// The `Add` node that takes each initializer.
    adds: HashMap<&'static str, &'g Node<'static>>,
}

impl<'g> Weights<'g> {
    fn new(graph: &'g onnx::Graph<'static>) -> Weights<'g> {
        let mut producer = HashMap::new();
        let mut adds = HashMap::new();
        for n in &graph.nodes {
            for &o in &n.outputs {
                producer.insert(o, n);
            }
            if n.op == "Add" {
                for &i in &n.inputs {
                    adds.insert(i, n);
                }
            }
        }
        Weights { graph, producer, adds }
    }

    fn init(&self, name: &str) -> Result<&'g onnx::Initializer<'static>, String> {
        self.graph.initializers.get(name).ok_or_else(|| format!("model.onnx has no `{name}`"))
    }

    fn floats(&self, name: &str, len: usize) -> Result<Vec<f32>, String> {
        let v = self.init(name)?.f32s().map_err(|e| format!("`{name}`: {e}"))?;
        if v.len() != len {
            return Err(format!("`{name}` has {} values, expected {len}", v.len()));
        }
        Ok(v)
    }

    fn norm(&self, prefix: &str) -> Result<Norm, String> {
        Ok(Norm { gamma: self.floats(&format!("{prefix}.weight"), HIDDEN)?, beta: self.floats(&format!("{prefix}.bias"), HIDDEN)? })
    }

    /// A dequantized value: `Mul(Cast(int8 initializer), float scales)`.
    fn quantized(&self, value: &str) -> Result<Quantized, String> {
        let not = || format!("`{value}` is not an int8 weight times its scales");
        let mul = self.producer.get(value).filter(|n| n.op == "Mul" && n.inputs.len() == 2).ok_or_else(not)?;
        let cast = self.producer.get(mul.inputs[0]).filter(|n| n.op == "Cast").ok_or_else(not)?;
        let q = self.init(cast.inputs[0])?;
        let scales = self.init(mul.inputs[1])?.f32s().map_err(|e| format!("`{}`: {e}", mul.inputs[1]))?;
        Ok(Quantized { values: q.i8s().map_err(|e| format!("`{}`: {e}", cast.inputs[0]))?, dims: q.dims.clone(), scales })
    }

    /// An embedding table `[rows, 384]` with one scale per row. The int8
    /// rows are borrowed from the model, which is `'static`.
    fn table(&self, value: &str) -> Result<(&'static [i8], Vec<f32>), String> {
        let Quantized { values, dims, scales } = self.quantized(value)?;
        match dims[..] {
            [rows, HIDDEN] if scales.len() == rows => Ok((values, scales)),
            _ => Err(format!("`{value}` has shape {dims:?} with {} scales, expected [rows, {HIDDEN}] with one per row", scales.len())),
        }
    }

    /// The 4-bit token table `{value}`: `{value}_q4` (uint8 `[rows, 192]`)
    /// and `{value}_scale4` (float16 `[rows, 12]`), which the graph unpacks
    /// into `{value}` (`derive_w4.py`; ONNX Runtime runs that graph for the
    /// reference vectors).
    fn words(&self, value: &str) -> Result<Words, String> {
        let (q, s) = (format!("{value}_q4"), format!("{value}_scale4"));
        let (qi, si) = (self.init(&q)?, self.init(&s)?);
        let packed = qi.u8s().map_err(|e| format!("`{q}`: {e}"))?;
        let scales = si.f16s().map_err(|e| format!("`{s}`: {e}"))?;
        match (&qi.dims[..], &si.dims[..]) {
            (&[rows, half], &[srows, groups]) if half * 2 == HIDDEN && srows == rows && groups * WORD_GROUP == HIDDEN && rows > 0 => {
                Ok(Words { packed, scales, rows })
            }
            (a, b) => Err(format!("`{q}` has shape {a:?} and `{s}` {b:?}, expected [rows, {}] and [rows, {}]", HIDDEN / 2, HIDDEN / WORD_GROUP)),
        }
    }

    /// The dense layer whose bias is `{prefix}.bias`: its `Add`, the
    /// `MatMul` feeding it, and that `MatMul`'s weight (one scale per
    /// output).
    fn linear(&self, prefix: &str) -> Result<Linear, String> {
        let bias_name = format!("{prefix}.bias");
        let add = self.adds.get(bias_name.as_str()).ok_or_else(|| format!("no Add takes `{bias_name}`"))?;
        let product = add.inputs.iter().find(|&&i| i != bias_name).ok_or_else(|| format!("`{bias_name}`'s Add has one input"))?;
        let matmul =
            self.producer.get(product).filter(|n| n.op == "MatMul" && n.inputs.len() == 2).ok_or_else(|| format!("`{bias_name}` is not added to a MatMul"))?;
        let Quantized { values: q, dims, scales } = self.quantized(matmul.inputs[1])?;
        let [inputs, outputs] = dims[..] else { return Err(format!("`{prefix}`'s weight has shape {dims:?}")) };
        if scales.len() != outputs {
            return Err(format!("`{prefix}` has {} scales for {outputs} outputs", scales.len()));
        }
        Ok(Linear { w: q.to_vec(), scales, b: self.floats(&bias_name, outputs)?, inputs, outputs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Reference {
        cases: Vec<Case>,
    }

    #[derive(serde::Deserialize)]
    struct Case {
        text: String,
        ids: Vec<u32>,
        vector: Vec<f32>,
    }

    /// The forward pass gives ONNX Runtime's float vectors within the
    /// rounding of 8-bit activations: every component within 0.02, every
    /// cosine above 0.997 and the median above 0.999 (measured: 0.9975 for
    /// a one-token text, 0.9993-0.9995 for the others), on short, long
    /// (128-token) and padded-batch cases. Before the activations were
    /// rounded (float32 throughout) this was 1e-5 and 0.99999.
    #[test]
    fn vectors_match_onnx_runtime() {
        let reference: Reference = serde_json::from_str(include_str!("../../fixtures/embed/minilm-reference.json")).unwrap();
        let model = MiniLm::load(super::super::local::MODEL_BYTES).unwrap();
        assert_eq!(model.vocabulary(), 30522);
        let seqs: Vec<Vec<u32>> = reference.cases.iter().map(|c| c.ids.clone()).collect();
        let got = model.embed(&seqs, 2);
        assert_eq!(got, model.embed(&seqs, 1), "threads change nothing");
        let mut scratch = Scratch::default();
        let baseline: Vec<Vec<f32>> = seqs.iter().map(|s| model.sequence_body(s, &mut scratch)).collect();
        assert_eq!(got, baseline, "the build of the loops for this CPU's lanes changes nothing");
        for kernel in super::super::int8::available() {
            let other = MiniLm::load_for(super::super::local::MODEL_BYTES, kernel).unwrap();
            assert_eq!(got, other.embed(&seqs, 2), "the {kernel:?} kernel gives the detected kernel's vectors");
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            let avx2: Vec<Vec<f32>> = seqs.iter().map(|s| unsafe { model.sequence_avx2(s, &mut scratch) }).collect();
            assert_eq!(avx2, baseline, "the AVX2 build of the loops changes nothing");
        }
        assert!(reference.cases.len() >= 6);
        let mut cosines = Vec::new();
        for (case, v) in reference.cases.iter().zip(&got) {
            let worst = case.vector.iter().zip(v).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
            let cosine: f32 = case.vector.iter().zip(v).map(|(a, b)| a * b).sum();
            eprintln!("{}: max difference {worst:.2e}, cosine {cosine:.7}", case.text);
            assert!(worst < 0.02 && cosine > 0.997, "{}: max difference {worst}, cosine {cosine}", case.text);
            cosines.push(cosine);
        }
        cosines.sort_by(f32::total_cmp);
        assert!(cosines[cosines.len() / 2] > 0.999, "median cosine {}", cosines[cosines.len() / 2]);
    }

    /// The vectorizable `exp` is libm's within a few parts in 10^7 over
    /// every input softmax and GELU give it (and 0 below the clamp).
    #[test]
    fn exp_is_libms_within_float_rounding() {
        let mut worst = 0f32;
        for i in 0..=200_000 {
            let x = -87.0 + 87.0 * i as f32 / 200_000.0;
            let (got, want) = (exp(x), x.exp());
            worst = worst.max(((got - want) / want).abs());
        }
        assert!(worst < 3e-7, "relative error {worst}");
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(-1000.0) < 1e-37 && exp(-1000.0) >= 0.0);
    }

    #[test]
    fn a_model_without_the_expected_weights_is_refused_by_name() {
        // A valid ONNX file with an empty graph.
        let err = MiniLm::load(&[0x3a, 0]).err().unwrap();
        assert!(err.contains("inner.embeddings.word_embeddings.weight"), "{err}");
    }
}
