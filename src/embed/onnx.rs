//! Reads the embedded `model-w4.onnx` without ONNX Runtime: just enough of the
//! protobuf wire format to list the graph's nodes (operator, inputs,
//! outputs) and its initializers (name, shape, element type, raw bytes).
//! `minilm.rs` finds its weights through that wiring. Nothing here runs a
//! graph.
//!
//! Field numbers are ONNX's (`onnx/onnx.proto3`): `ModelProto.graph` = 7;
//! `GraphProto.node` = 1, `.initializer` = 5; `NodeProto.input` = 1,
//! `.output` = 2, `.op_type` = 4; `TensorProto.dims` = 1, `.data_type` = 2,
//! `.float_data` = 4, `.int32_data` = 5, `.int64_data` = 7, `.name` = 8,
//! `.raw_data` = 9, `.data_location` = 14.

use std::collections::HashMap;

/// ONNX `TensorProto.DataType` values used here.
pub(crate) const FLOAT: i32 = 1;
pub(crate) const UINT8: i32 = 2;
pub(crate) const INT8: i32 = 3;
pub(crate) const FLOAT16: i32 = 10;

#[derive(Debug, Default)]
pub struct Node<'a> {
    pub op: &'a str,
    pub inputs: Vec<&'a str>,
    pub outputs: Vec<&'a str>,
}

#[derive(Debug, Default)]
pub(crate) struct Initializer<'a> {
    pub dims: Vec<usize>,
    pub data_type: i32,
    /// Little-endian element bytes (`raw_data`).
    pub raw: &'a [u8],
    /// `float_data`, when the exporter did not use `raw_data`.
    pub floats: Vec<f32>,
}

impl<'a> Initializer<'a> {
    pub fn len(&self) -> usize {
        self.dims.iter().product()
    }

    /// The elements of a FLOAT tensor.
    pub(crate) fn f32s(&self) -> Result<Vec<f32>, String> {
        if self.data_type != FLOAT {
            return Err(format!("expected float data, found type {}", self.data_type));
        }
        let out: Vec<f32> =
            if self.raw.is_empty() { self.floats.clone() } else { self.raw.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect() };
        if out.len() != self.len() {
            return Err(format!("{} values for shape {:?}", out.len(), self.dims));
        }
        Ok(out)
    }

    /// The elements of an INT8 tensor (stored as `raw_data`).
    pub(crate) fn i8s(&self) -> Result<&'a [i8], String> {
        if self.data_type != INT8 || self.raw.len() != self.len() {
            return Err(format!("expected {} raw int8 values, found type {} with {} bytes", self.len(), self.data_type, self.raw.len()));
        }
        // SAFETY: i8 and u8 have the same size and alignment.
        Ok(unsafe { std::slice::from_raw_parts(self.raw.as_ptr().cast::<i8>(), self.raw.len()) })
    }

    /// The elements of a UINT8 tensor (stored as `raw_data`), borrowed.
    pub(crate) fn u8s(&self) -> Result<&'a [u8], String> {
        if self.data_type != UINT8 || self.raw.len() != self.len() {
            return Err(format!("expected {} raw uint8 values, found type {} with {} bytes", self.len(), self.data_type, self.raw.len()));
        }
        Ok(self.raw)
    }

    /// The elements of a FLOAT16 tensor (stored as `raw_data`), widened.
    pub(crate) fn f16s(&self) -> Result<Vec<f32>, String> {
        if self.data_type != FLOAT16 || self.raw.len() != 2 * self.len() {
            return Err(format!("expected {} raw float16 values, found type {} with {} bytes", self.len(), self.data_type, self.raw.len()));
        }
        Ok(self.raw.chunks_exact(2).map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]]))).collect())
    }
}

/// IEEE 754 half precision to single, exactly (subnormals, infinities and
/// NaN included).
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let mant = u32::from(h & 0x3ff);
    let bits = match (exp, mant) {
        (0, 0) => sign,
        // Subnormal: mant × 2^-24, exactly representable in f32.
        (0, m) => {
            let v = m as f32 * 2f32.powi(-24);
            return if sign == 0 { v } else { -v };
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

#[derive(Debug, Default)]
pub struct Graph<'a> {
    pub nodes: Vec<Node<'a>>,
    pub initializers: HashMap<&'a str, Initializer<'a>>,
}

/// Parses a model's graph. Errors name what was malformed.
pub fn parse(model: &[u8]) -> Result<Graph<'_>, String> {
    let mut graph = None;
    for field in Fields(model) {
        if let (7, Value::Bytes(b)) = field? {
            graph = Some(b);
        }
    }
    let graph = graph.ok_or("no graph in model.onnx")?;
    let mut out = Graph::default();
    for field in Fields(graph) {
        match field? {
            (1, Value::Bytes(b)) => out.nodes.push(node(b)?),
            (5, Value::Bytes(b)) => {
                let (name, init) = initializer(b)?;
                out.initializers.insert(name, init);
            }
            _ => {}
        }
    }
    Ok(out)
}

fn node(buf: &[u8]) -> Result<Node<'_>, String> {
    let mut n = Node::default();
    for field in Fields(buf) {
        match field? {
            (1, Value::Bytes(b)) => n.inputs.push(text(b)?),
            (2, Value::Bytes(b)) => n.outputs.push(text(b)?),
            (4, Value::Bytes(b)) => n.op = text(b)?,
            _ => {}
        }
    }
    Ok(n)
}

fn initializer(buf: &[u8]) -> Result<(&str, Initializer<'_>), String> {
    let mut name = "";
    let mut t = Initializer::default();
    for field in Fields(buf) {
        match field? {
            (1, Value::Varint(d)) => t.dims.push(d as usize),
            (1, Value::Bytes(packed)) => {
                let mut r = Fields(packed);
                while !r.0.is_empty() {
                    t.dims.push(r.varint()? as usize);
                }
            }
            (2, Value::Varint(d)) => t.data_type = d as i32,
            (4, Value::Bytes(packed)) => {
                t.floats.extend(packed.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
            }
            (4, Value::Fixed32(bits)) => t.floats.push(f32::from_bits(bits)),
            (8, Value::Bytes(b)) => name = text(b)?,
            (9, Value::Bytes(b)) => t.raw = b,
            (14, Value::Varint(1)) => return Err(format!("initializer `{name}` keeps its data outside the model file")),
            _ => {}
        }
    }
    Ok((name, t))
}

fn text(b: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(b).map_err(|_| "a name in model.onnx is not UTF-8".to_string())
}

enum Value<'a> {
    Varint(u64),
    Fixed64,
    Bytes(&'a [u8]),
    Fixed32(u32),
}

/// The fields of one protobuf message, in order.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.0.split_first().ok_or("model.onnx ends inside a number")?;
            self.0 = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("model.onnx has a number longer than 10 bytes".into())
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.0.len() {
            return Err(format!("model.onnx is truncated: a field of {n} bytes has {} left", self.0.len()));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn field(&mut self) -> Result<(u32, Value<'a>), String> {
        let key = self.varint()?;
        let number = (key >> 3) as u32;
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Value::Fixed64
            }
            2 => {
                let n = self.varint()? as usize;
                Value::Bytes(self.take(n)?)
            }
            5 => {
                let b = self.take(4)?;
                Value::Fixed32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }
            other => return Err(format!("model.onnx has an unsupported wire type {other} in field {number}")),
        };
        Ok((number, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, Value<'a>), String>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        let item = self.field();
        if item.is_err() {
            self.0 = &[];
        }
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nodes_and_initializers_of_a_hand_made_graph() {
        // node { input: "x" input: "w" output: "y" op_type: "MatMul" }
        let node = [&[0x0a, 1, b'x', 0x0a, 1, b'w', 0x12, 1, b'y', 0x22, 6][..], b"MatMul"].concat();
        // initializer { dims: 2 dims: 1 data_type: 1 name: "w" raw_data: [1.0, -2.0] }
        let raw = [1.0f32.to_le_bytes(), (-2.0f32).to_le_bytes()].concat();
        let init = [&[0x08, 2, 0x08, 1, 0x10, 1, 0x42, 1, b'w', 0x4a, 8][..], &raw].concat();
        let graph = [&[0x0a, node.len() as u8][..], &node, &[0x2a, init.len() as u8], &init].concat();
        let model = [&[0x08, 7, 0x3a, graph.len() as u8][..], &graph].concat();
        let g = parse(&model).unwrap();
        assert_eq!(g.nodes.len(), 1);
        assert_eq!((g.nodes[0].op, g.nodes[0].inputs.as_slice(), g.nodes[0].outputs.as_slice()), ("MatMul", &["x", "w"][..], &["y"][..]));
        let w = &g.initializers["w"];
        assert_eq!(w.dims, vec![2, 1]);
        assert_eq!(w.f32s().unwrap(), vec![1.0, -2.0]);
        assert!(w.i8s().is_err());
    }

    #[test]
    fn half_precision_widens_exactly() {
        for (h, f) in [
            (0x3c00, 1.0f32),
            (0xc000, -2.0),
            (0x0000, 0.0),
            (0x7bff, 65504.0),
            (0x0400, 6.103_515_6e-5),
            (0x0001, 5.960_464_5e-8),
            (0x8001, -5.960_464_5e-8),
            (0x3555, 0.333_251_95),
        ] {
            assert_eq!(f16_to_f32(h), f, "{h:#06x}");
        }
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert!(f16_to_f32(0x7e00).is_nan());
        assert_eq!(f16_to_f32(0x8000).to_bits(), 0x8000_0000, "negative zero");
    }

    #[test]
    fn a_truncated_model_is_an_error_not_a_panic() {
        let err = parse(&[0x3a, 0x40, 0x0a]).unwrap_err();
        assert!(err.contains("truncated"), "{err}");
        assert!(parse(&[0x08]).is_err());
        assert_eq!(parse(&[]).unwrap_err(), "no graph in model.onnx");
    }
}
