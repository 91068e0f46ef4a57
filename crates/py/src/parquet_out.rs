//! Parquet files of the result tables, encoded here so that a run's Python side needs neither
//! pyarrow nor pandas (issue 12 item 1; docs/benchmarks.md).
//!
//! The caller passes the columns in file order as (name, dtype, data) with dtype "int64",
//! "float64" or "string": the front builds that list from `results.table_columns()`, the one
//! schema definition its pyarrow writer (used where this module is absent) reads as well. The
//! file matches what that writer produces with `results.PARQUET_OPTIONS`: every column OPTIONAL
//! (nullable, no nulls written), strings as BYTE_ARRAY annotated STRING, zstd level 3,
//! dictionary encoding with fallback to plain, chunk and page statistics, row groups of at most
//! 2^20 rows, data pages v1. The output is a pure function of the input (no timestamp).

use numpy::PyReadonlyArray1;
use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use std::sync::Arc;

/// pyarrow's default row-group length, so that both writers split tables alike.
const ROW_GROUP_ROWS: usize = 1 << 20;

enum Data<'a> {
    I64(&'a [i64]),
    F64(&'a [f64]),
    Str(Vec<ByteArray>),
}

impl Data<'_> {
    fn len(&self) -> usize {
        match self {
            Data::I64(v) => v.len(),
            Data::F64(v) => v.len(),
            Data::Str(v) => v.len(),
        }
    }
}

fn field(name: &str, data: &Data) -> Result<Arc<Type>, ParquetError> {
    let (physical, logical) = match data {
        Data::I64(_) => (Physical::INT64, None),
        Data::F64(_) => (Physical::DOUBLE, None),
        Data::Str(_) => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
    };
    Ok(Arc::new(Type::primitive_type_builder(name, physical).with_repetition(Repetition::OPTIONAL).with_logical_type(logical).build()?))
}

fn encode(names: &[String], cols: &[Data]) -> Result<Vec<u8>, ParquetError> {
    let fields = names.iter().zip(cols).map(|(n, d)| field(n, d)).collect::<Result<Vec<_>, _>>()?;
    let schema = Arc::new(Type::group_type_builder("schema").with_fields(fields).build()?);
    let props = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_1_0) // data pages v1, as pyarrow's data_page_version="1.0"
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
        .set_dictionary_enabled(true)
        .set_statistics_enabled(EnabledStatistics::Page)
        .build();
    let rows = cols.first().map_or(0, Data::len);
    let mut out = Vec::new();
    let mut w = SerializedFileWriter::new(&mut out, schema, Arc::new(props))?;
    let mut start = 0;
    while start < rows {
        let end = (start + ROW_GROUP_ROWS).min(rows);
        let defined = vec![1i16; end - start]; // every value present (definition level 1)
        let mut rg = w.next_row_group()?;
        for data in cols {
            let mut c = rg.next_column()?.ok_or_else(|| ParquetError::General("schema has fewer columns than data".into()))?;
            match data {
                Data::I64(v) => c.typed::<Int64Type>().write_batch(&v[start..end], Some(&defined), None)?,
                Data::F64(v) => c.typed::<DoubleType>().write_batch(&v[start..end], Some(&defined), None)?,
                Data::Str(v) => c.typed::<ByteArrayType>().write_batch(&v[start..end], Some(&defined), None)?,
            };
            c.close()?;
        }
        rg.close()?;
        start = end;
    }
    w.close()?;
    Ok(out)
}

/// One string column: any iterable (a list, or a numpy object array); an item that is not a str
/// is written as `str(item)`, like the pyarrow writer does.
fn strings(data: &Bound<'_, PyAny>) -> PyResult<Vec<ByteArray>> {
    let mut out = Vec::with_capacity(data.len().unwrap_or(0));
    for item in data.try_iter()? {
        let item = item?;
        let s = match item.downcast::<PyString>() {
            Ok(s) => s.clone(),
            Err(_) => item.str()?,
        };
        out.push(ByteArray::from(s.to_cow()?.as_bytes().to_vec())); // to_str needs Python >= 3.10 under abi3
    }
    Ok(out)
}

/// The bytes of a Parquet file holding `columns`, a list of (name, dtype, data) in file order:
/// dtype "int64" / "float64" with a contiguous numpy array of that dtype, or "string" with an
/// iterable of str. ValueError for an unknown dtype or columns of different lengths.
#[pyfunction]
pub fn parquet_table<'py>(py: Python<'py>, columns: Vec<(String, String, Bound<'py, PyAny>)>) -> PyResult<Bound<'py, PyBytes>> {
    let mut ints: Vec<PyReadonlyArray1<'py, i64>> = Vec::new();
    let mut floats: Vec<PyReadonlyArray1<'py, f64>> = Vec::new();
    let mut texts: Vec<Vec<ByteArray>> = Vec::new();
    for (name, dtype, data) in &columns {
        match dtype.as_str() {
            "int64" => ints.push(data.extract().map_err(|_| PyValueError::new_err(format!("{name}: expected a numpy int64 array")))?),
            "float64" => floats.push(data.extract().map_err(|_| PyValueError::new_err(format!("{name}: expected a numpy float64 array")))?),
            "string" => texts.push(strings(data)?),
            other => return Err(PyValueError::new_err(format!("{name}: dtype must be int64, float64 or string, got {other:?}"))),
        }
    }
    let (mut i, mut f, mut s) = (ints.iter(), floats.iter(), texts.into_iter());
    let mut cols = Vec::with_capacity(columns.len());
    for (name, dtype, _) in &columns {
        let slice_err = |_| PyValueError::new_err(format!("{name}: array is not contiguous"));
        cols.push(match dtype.as_str() {
            "int64" => Data::I64(i.next().expect("one array per int64 column").as_slice().map_err(slice_err)?),
            "float64" => Data::F64(f.next().expect("one array per float64 column").as_slice().map_err(slice_err)?),
            _ => Data::Str(s.next().expect("one list per string column")),
        });
    }
    if let Some(c) = cols.iter().position(|d| d.len() != cols[0].len()) {
        return Err(PyValueError::new_err(format!("{}: {} rows, but {} has {}", columns[c].0, cols[c].len(), columns[0].0, cols[0].len())));
    }
    let names: Vec<String> = columns.iter().map(|(n, _, _)| n.clone()).collect();
    let bytes = py.allow_threads(|| encode(&names, &cols)).map_err(|e| PyRuntimeError::new_err(format!("parquet: {e}")))?;
    Ok(PyBytes::new(py, &bytes))
}
