//! The names the prepared code gives its own parts, shared by the
//! rewrite, the helpers and the code around the block (a leaf: it uses
//! nothing). `$` keeps them out of the way of ordinary code; they live in
//! the wrapper function, outside `with`.

pub const SCOPE: &str = "$daebug$scope";
pub const GLOBAL: &str = "$daebug$global";
pub const EXPORT: &str = "$daebug$export";
pub const RESOLVE: &str = "$daebug$resolve";
pub const RESULT: &str = "$daebug$result";
pub const FUNCTION: &str = "$daebug$function";
/// What a function of the block calls to read a console helper.
pub const HELPER: &str = "$daebug$helper";
