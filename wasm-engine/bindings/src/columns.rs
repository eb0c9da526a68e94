//! `Columns`: a bag of named typed-array columns handed to JavaScript one column at a time
//! (moved out, not copied), so a query with many columns needs no getter per column.

use serde_json::json;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

pub enum Col {
    F64(Vec<f64>),
    U32(Vec<u32>),
    I32(Vec<i32>),
}

#[wasm_bindgen]
#[derive(Default)]
pub struct Columns {
    cols: BTreeMap<String, Col>,
}

impl Columns {
    pub fn f64(&mut self, name: &str, v: Vec<f64>) {
        self.cols.insert(name.to_string(), Col::F64(v));
    }
    pub fn u32(&mut self, name: &str, v: Vec<u32>) {
        self.cols.insert(name.to_string(), Col::U32(v));
    }
    pub fn i32(&mut self, name: &str, v: Vec<i32>) {
        self.cols.insert(name.to_string(), Col::I32(v));
    }
}

#[wasm_bindgen]
impl Columns {
    /// `[[name, "f64" | "u32" | "i32"], ...]` as JSON.
    pub fn names(&self) -> String {
        let v: Vec<_> = self
            .cols
            .iter()
            .map(|(k, c)| {
                let t = match c {
                    Col::F64(_) => "f64",
                    Col::U32(_) => "u32",
                    Col::I32(_) => "i32",
                };
                json!([k, t])
            })
            .collect();
        serde_json::Value::Array(v).to_string()
    }

    /// Moves a f64 column out (empty if there is none of that name and type).
    pub fn take_f64(&mut self, name: &str) -> Vec<f64> {
        match self.cols.remove(name) {
            Some(Col::F64(v)) => v,
            _ => Vec::new(),
        }
    }

    pub fn take_u32(&mut self, name: &str) -> Vec<u32> {
        match self.cols.remove(name) {
            Some(Col::U32(v)) => v,
            _ => Vec::new(),
        }
    }

    pub fn take_i32(&mut self, name: &str) -> Vec<i32> {
        match self.cols.remove(name) {
            Some(Col::I32(v)) => v,
            _ => Vec::new(),
        }
    }
}
