// An async function returning `Result<Output, E>`.

mod calc {
    pub use toolseal_ui::calc::*;
}

#[toolseal::tool(registry = "calc", name = "get-sum")]
async fn add(a: i64, b: i64) -> Result<calc::GetSumOutput, std::num::TryFromIntError> {
    let sum = i64::try_from(i128::from(a) + i128::from(b))?;
    Ok(serde_json::from_value(serde_json::json!({ "sum": sum })).unwrap())
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

fn main() {
    assert_eq!(block_on(add(2, 3)).unwrap().sum, 5);
}
