//! The Parquet writer of one split: rows buffered in Arrow builders and flushed as a record
//! batch every [`BATCH_ROWS`] rows, so memory is bounded by one batch.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;

use super::Row;

/// Rows per record batch (and so per row group at most).
const BATCH_ROWS: usize = 1024;

/// One split's Parquet file being written.
pub(super) struct ParquetSplit {
    writer: ArrowWriter<std::fs::File>,
    schema: SchemaRef,
    rows: usize,
    id: StringBuilder,
    first_language: StringBuilder,
    second_language: StringBuilder,
    texts: ListBuilder<StringBuilder>,
    score: Float64Builder,
    accepted: BooleanBuilder,
    fluency: Float64Builder,
    naturalness: Float64Builder,
    cs_ratio: Float64Builder,
    socio_cultural: Float64Builder,
    measurement_status: StringBuilder,
    coverage: Float64Builder,
    embedded_ratio: Float64Builder,
    switch_points: Int64Builder,
    cmi: Float64Builder,
    gate_passed: BooleanBuilder,
    duplicate_of: StringBuilder,
    params: StringBuilder,
    models: StringBuilder,
}

fn schema() -> SchemaRef {
    let text = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
    let float = |name: &str| Field::new(name, DataType::Float64, true);
    Arc::new(Schema::new(vec![
        text("id", false),
        text("first_language", true),
        text("second_language", true),
        Field::new(
            "texts",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            false,
        ),
        Field::new("score", DataType::Float64, false),
        Field::new("accepted", DataType::Boolean, false),
        float("fluency"),
        float("naturalness"),
        float("cs_ratio"),
        float("socio_cultural"),
        text("measurement_status", true),
        float("coverage"),
        float("embedded_ratio"),
        Field::new("switch_points", DataType::Int64, true),
        float("cmi"),
        Field::new("gate_passed", DataType::Boolean, true),
        text("duplicate_of", true),
        text("params", false),
        text("models", false),
    ]))
}

impl ParquetSplit {
    pub(super) fn new(file: std::fs::File) -> std::io::Result<Self> {
        let schema = schema();
        let writer =
            ArrowWriter::try_new(file, Arc::clone(&schema), None).map_err(std::io::Error::other)?;
        Ok(Self {
            writer,
            schema,
            rows: 0,
            id: StringBuilder::new(),
            first_language: StringBuilder::new(),
            second_language: StringBuilder::new(),
            texts: ListBuilder::new(StringBuilder::new()),
            score: Float64Builder::new(),
            accepted: BooleanBuilder::new(),
            fluency: Float64Builder::new(),
            naturalness: Float64Builder::new(),
            cs_ratio: Float64Builder::new(),
            socio_cultural: Float64Builder::new(),
            measurement_status: StringBuilder::new(),
            coverage: Float64Builder::new(),
            embedded_ratio: Float64Builder::new(),
            switch_points: Int64Builder::new(),
            cmi: Float64Builder::new(),
            gate_passed: BooleanBuilder::new(),
            duplicate_of: StringBuilder::new(),
            params: StringBuilder::new(),
            models: StringBuilder::new(),
        })
    }

    pub(super) fn push(&mut self, row: &Row<'_>) -> std::io::Result<()> {
        self.id.append_value(row.id);
        self.first_language.append_option(row.first_language);
        self.second_language.append_option(row.second_language);
        for text in row.texts {
            self.texts.values().append_value(text);
        }
        self.texts.append(true);
        self.score.append_value(row.score);
        self.accepted.append_value(row.accepted);
        self.fluency.append_option(row.fluency);
        self.naturalness.append_option(row.naturalness);
        self.cs_ratio.append_option(row.cs_ratio);
        self.socio_cultural.append_option(row.socio_cultural);
        self.measurement_status
            .append_option(row.measurement_status);
        self.coverage.append_option(row.coverage);
        self.embedded_ratio.append_option(row.embedded_ratio);
        self.switch_points.append_option(row.switch_points);
        self.cmi.append_option(row.cmi);
        self.gate_passed.append_option(row.gate_passed);
        self.duplicate_of.append_option(row.duplicate_of);
        self.params.append_value(&row.params);
        self.models.append_value(&row.models);
        self.rows += 1;
        if self.rows >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(self.id.finish()),
            Arc::new(self.first_language.finish()),
            Arc::new(self.second_language.finish()),
            Arc::new(self.texts.finish()),
            Arc::new(self.score.finish()),
            Arc::new(self.accepted.finish()),
            Arc::new(self.fluency.finish()),
            Arc::new(self.naturalness.finish()),
            Arc::new(self.cs_ratio.finish()),
            Arc::new(self.socio_cultural.finish()),
            Arc::new(self.measurement_status.finish()),
            Arc::new(self.coverage.finish()),
            Arc::new(self.embedded_ratio.finish()),
            Arc::new(self.switch_points.finish()),
            Arc::new(self.cmi.finish()),
            Arc::new(self.gate_passed.finish()),
            Arc::new(self.duplicate_of.finish()),
            Arc::new(self.params.finish()),
            Arc::new(self.models.finish()),
        ];
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), columns)
            .map_err(std::io::Error::other)?;
        self.writer.write(&batch).map_err(std::io::Error::other)?;
        self.rows = 0;
        Ok(())
    }

    pub(super) fn finish(mut self) -> std::io::Result<()> {
        self.flush()?;
        let file = self.writer.into_inner().map_err(std::io::Error::other)?;
        file.sync_all()
    }
}
