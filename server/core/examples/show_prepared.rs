//! Prints what a block prepares to: `cargo run -p daebug-core --example show_prepared -- '1+1'`.
fn main() {
    let src = std::env::args().nth(1).unwrap_or_else(|| "1+1".into());
    match daebug_core::prepare::prepare(
        &src,
        daebug_core::lang::Lang::Js,
        daebug_protocol::JobId(7),
    ) {
        Ok(p) => println!("{} bytes\n{}", p.code.len(), p.code),
        Err(e) => println!("error: {e:?}"),
    }
}
