//! The Parquet writer of one split: rows buffered in Arrow builders and flushed as a record
//! batch every [`BATCH_ROWS`] rows, so memory is bounded by one batch.

use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use serde_json::Value;

use super::{ParamColumns, ParamKind, Row};

/// Rows per record batch (and so per row group at most).
const BATCH_ROWS: usize = 1024;

type Texts = ListBuilder<StringBuilder>;

/// One split's Parquet file being written.
pub(super) struct ParquetSplit {
    writer: ArrowWriter<std::fs::File>,
    schema: SchemaRef,
    rows: usize,
    id: StringBuilder,
    included_as: StringBuilder,
    first_language: StringBuilder,
    second_language: StringBuilder,
    texts: Texts,
    tokens: ListBuilder<Texts>,
    tags: ListBuilder<Texts>,
    sentence_status: Texts,
    sentence_coverage: ListBuilder<Float64Builder>,
    sentence_embedded_ratio: ListBuilder<Float64Builder>,
    sentence_switch_points: ListBuilder<Int64Builder>,
    sentence_cmi: ListBuilder<Float64Builder>,
    sentences_recomputed: BooleanBuilder,
    score: Float64Builder,
    accepted: BooleanBuilder,
    judges: [Float64Builder; 4],
    judge_scores: StringBuilder,
    judge_feedback: StringBuilder,
    summary: StringBuilder,
    attempts: Int64Builder,
    attempt_scores: ListBuilder<Float64Builder>,
    measurement_status: StringBuilder,
    figures: [Float64Builder; 6],
    switch_points: Int64Builder,
    gate_passed: BooleanBuilder,
    gate_reason: StringBuilder,
    grounding: StringBuilder,
    duplicate_of: StringBuilder,
    params: StringBuilder,
    models: StringBuilder,
    param_columns: Vec<ParamBuilder>,
}

/// A typed parameter column's builder.
enum ParamBuilder {
    Bool(BooleanBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    Text(StringBuilder),
}

impl ParamBuilder {
    fn new(kind: ParamKind) -> Self {
        match kind {
            ParamKind::Bool => Self::Bool(BooleanBuilder::new()),
            ParamKind::Int => Self::Int(Int64Builder::new()),
            ParamKind::Float => Self::Float(Float64Builder::new()),
            ParamKind::Text | ParamKind::Json => Self::Text(StringBuilder::new()),
        }
    }

    fn data_type(kind: ParamKind) -> DataType {
        match kind {
            ParamKind::Bool => DataType::Boolean,
            ParamKind::Int => DataType::Int64,
            ParamKind::Float => DataType::Float64,
            ParamKind::Text | ParamKind::Json => DataType::Utf8,
        }
    }

    fn push(&mut self, v: &Value) {
        match self {
            Self::Bool(b) => b.append_option(v.as_bool()),
            Self::Int(b) => b.append_option(v.as_i64()),
            Self::Float(b) => b.append_option(v.as_f64()),
            Self::Text(b) => b.append_option(v.as_str()),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Self::Bool(b) => Arc::new(b.finish()),
            Self::Int(b) => Arc::new(b.finish()),
            Self::Float(b) => Arc::new(b.finish()),
            Self::Text(b) => Arc::new(b.finish()),
        }
    }
}

/// The judge columns, in [`ParquetSplit::judges`] order.
const JUDGES: [&str; 4] = ["fluency", "naturalness", "cs_ratio", "socio_cultural"];
/// The float figure columns, in [`ParquetSplit::figures`] order.
const FIGURES: [&str; 6] = [
    "coverage",
    "embedded_ratio",
    "cmi",
    "m_index",
    "i_index",
    "burstiness",
];

fn list_of(item: DataType) -> DataType {
    DataType::List(Arc::new(Field::new("item", item, true)))
}

fn schema(params: &ParamColumns) -> SchemaRef {
    let text = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
    let float = |name: &str| Field::new(name, DataType::Float64, true);
    let list = |name: &str, item: DataType| Field::new(name, list_of(item), false);
    let nullable_list = |name: &str, item: DataType| Field::new(name, list_of(item), true);
    let mut fields = vec![
        text("id", false),
        text("included_as", false),
        text("first_language", true),
        text("second_language", true),
        list("texts", DataType::Utf8),
        list("tokens", list_of(DataType::Utf8)),
        list("tags", list_of(DataType::Utf8)),
        nullable_list("sentence_status", DataType::Utf8),
        nullable_list("sentence_coverage", DataType::Float64),
        nullable_list("sentence_embedded_ratio", DataType::Float64),
        nullable_list("sentence_switch_points", DataType::Int64),
        nullable_list("sentence_cmi", DataType::Float64),
        Field::new("sentences_recomputed", DataType::Boolean, false),
        Field::new("score", DataType::Float64, false),
        Field::new("accepted", DataType::Boolean, false),
    ];
    fields.extend(JUDGES.iter().map(|j| float(j)));
    fields.extend([
        text("judge_scores", false),
        text("judge_feedback", false),
        text("summary", false),
        Field::new("attempts", DataType::Int64, false),
        list("attempt_scores", DataType::Float64),
        text("measurement_status", true),
    ]);
    fields.extend(FIGURES.iter().map(|f| float(f)));
    fields.extend([
        Field::new("switch_points", DataType::Int64, true),
        Field::new("gate_passed", DataType::Boolean, true),
        text("gate_reason", true),
        text("grounding", true),
        text("duplicate_of", true),
        text("params", false),
        text("models", false),
    ]);
    fields.extend(
        params
            .columns()
            .map(|(name, kind)| Field::new(name, ParamBuilder::data_type(kind), true)),
    );
    Arc::new(Schema::new(fields))
}

impl ParquetSplit {
    pub(super) fn new(file: std::fs::File, params: &ParamColumns) -> std::io::Result<Self> {
        let schema = schema(params);
        let writer =
            ArrowWriter::try_new(file, Arc::clone(&schema), None).map_err(std::io::Error::other)?;
        let texts = || ListBuilder::new(StringBuilder::new());
        let floats = || ListBuilder::new(Float64Builder::new());
        Ok(Self {
            writer,
            schema,
            rows: 0,
            id: StringBuilder::new(),
            included_as: StringBuilder::new(),
            first_language: StringBuilder::new(),
            second_language: StringBuilder::new(),
            texts: texts(),
            tokens: ListBuilder::new(texts()),
            tags: ListBuilder::new(texts()),
            sentence_status: texts(),
            sentence_coverage: floats(),
            sentence_embedded_ratio: floats(),
            sentence_switch_points: ListBuilder::new(Int64Builder::new()),
            sentence_cmi: floats(),
            sentences_recomputed: BooleanBuilder::new(),
            score: Float64Builder::new(),
            accepted: BooleanBuilder::new(),
            judges: Default::default(),
            judge_scores: StringBuilder::new(),
            judge_feedback: StringBuilder::new(),
            summary: StringBuilder::new(),
            attempts: Int64Builder::new(),
            attempt_scores: floats(),
            measurement_status: StringBuilder::new(),
            figures: Default::default(),
            switch_points: Int64Builder::new(),
            gate_passed: BooleanBuilder::new(),
            gate_reason: StringBuilder::new(),
            grounding: StringBuilder::new(),
            duplicate_of: StringBuilder::new(),
            params: StringBuilder::new(),
            models: StringBuilder::new(),
            param_columns: params
                .columns()
                .map(|(_, kind)| ParamBuilder::new(kind))
                .collect(),
        })
    }

    pub(super) fn push(&mut self, row: &Row<'_>) -> std::io::Result<()> {
        self.id.append_value(row.id);
        self.included_as.append_value(included_as(row));
        self.first_language.append_option(row.first_language);
        self.second_language.append_option(row.second_language);
        self.texts
            .append_value(row.texts.iter().map(|t| Some(t.as_str())));
        for (nested, lists) in [(&mut self.tokens, &row.tokens), (&mut self.tags, &row.tags)] {
            for sentence in lists {
                nested
                    .values()
                    .append_value(sentence.iter().map(|t| Some(t.as_str())));
            }
            nested.append(true);
        }
        self.sentence_status
            .append_option(row.sentence_status.as_ref().map(|v| v.iter().copied()));
        self.sentence_coverage
            .append_option(row.sentence_coverage.as_ref().map(|v| v.iter().copied()));
        self.sentence_embedded_ratio.append_option(
            row.sentence_embedded_ratio
                .as_ref()
                .map(|v| v.iter().copied()),
        );
        self.sentence_switch_points.append_option(
            row.sentence_switch_points
                .as_ref()
                .map(|v| v.iter().copied()),
        );
        self.sentence_cmi
            .append_option(row.sentence_cmi.as_ref().map(|v| v.iter().copied()));
        self.sentences_recomputed
            .append_value(row.sentences_recomputed);
        self.score.append_value(row.score);
        self.accepted.append_value(row.accepted);
        let judges = [
            row.fluency,
            row.naturalness,
            row.cs_ratio,
            row.socio_cultural,
        ];
        for (b, v) in self.judges.iter_mut().zip(judges) {
            b.append_option(v);
        }
        self.judge_scores.append_value(&row.judge_scores);
        self.judge_feedback.append_value(&row.judge_feedback);
        self.summary.append_value(row.summary);
        self.attempts.append_value(row.attempts);
        self.attempt_scores
            .append_value(row.attempt_scores.iter().map(|s| Some(*s)));
        self.measurement_status
            .append_option(row.measurement_status);
        let figures = [
            row.coverage,
            row.embedded_ratio,
            row.cmi,
            row.m_index,
            row.i_index,
            row.burstiness,
        ];
        for (b, v) in self.figures.iter_mut().zip(figures) {
            b.append_option(v);
        }
        self.switch_points.append_option(row.switch_points);
        self.gate_passed.append_option(row.gate_passed);
        self.gate_reason.append_option(row.gate_reason);
        self.grounding.append_option(row.grounding.as_deref());
        self.duplicate_of.append_option(row.duplicate_of);
        self.params.append_value(&row.params);
        self.models.append_value(&row.models);
        for (b, v) in self.param_columns.iter_mut().zip(&row.param_values) {
            b.push(v);
        }
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
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.id.finish()),
            Arc::new(self.included_as.finish()),
            Arc::new(self.first_language.finish()),
            Arc::new(self.second_language.finish()),
            Arc::new(self.texts.finish()),
            Arc::new(self.tokens.finish()),
            Arc::new(self.tags.finish()),
            Arc::new(self.sentence_status.finish()),
            Arc::new(self.sentence_coverage.finish()),
            Arc::new(self.sentence_embedded_ratio.finish()),
            Arc::new(self.sentence_switch_points.finish()),
            Arc::new(self.sentence_cmi.finish()),
            Arc::new(self.sentences_recomputed.finish()),
            Arc::new(self.score.finish()),
            Arc::new(self.accepted.finish()),
        ];
        columns.extend(self.judges.iter_mut().map(|b| finish(b)));
        columns.extend([
            Arc::new(self.judge_scores.finish()) as ArrayRef,
            Arc::new(self.judge_feedback.finish()),
            Arc::new(self.summary.finish()),
            Arc::new(self.attempts.finish()),
            Arc::new(self.attempt_scores.finish()),
            Arc::new(self.measurement_status.finish()),
        ]);
        columns.extend(self.figures.iter_mut().map(|b| finish(b)));
        columns.extend([
            Arc::new(self.switch_points.finish()) as ArrayRef,
            Arc::new(self.gate_passed.finish()),
            Arc::new(self.gate_reason.finish()),
            Arc::new(self.grounding.finish()),
            Arc::new(self.duplicate_of.finish()),
            Arc::new(self.params.finish()),
            Arc::new(self.models.finish()),
        ]);
        columns.extend(self.param_columns.iter_mut().map(ParamBuilder::finish));
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

fn finish(b: &mut Float64Builder) -> ArrayRef {
    Arc::new(ArrayBuilder::finish(b))
}

fn included_as(row: &Row<'_>) -> &'static str {
    match row.included_as {
        super::IncludedAs::Accepted => "accepted",
        super::IncludedAs::Rejected => "rejected",
        super::IncludedAs::Duplicate => "duplicate",
    }
}
