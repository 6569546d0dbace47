//! TEMPORARY stub until the type stripper lands.
use super::splice::Splices;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    pub at: usize,
    pub message: String,
}

pub fn strip_types(
    _program: &oxc_ast::ast::Program<'_>,
    _source: &str,
    _splices: &mut Splices,
) -> Result<(), Unsupported> {
    Ok(())
}
