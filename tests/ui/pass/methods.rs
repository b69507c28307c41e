// `#[tool]` on methods of an ordinary impl, sync and async.

mod calc {
    pub use toolseal_ui::calc::*;
}

struct Calc {
    offset: i64,
}

impl Calc {
    #[toolseal::tool(registry = "calc", name = "get-sum")]
    async fn add(&self, a: i64, b: i64) -> calc::GetSumOutput {
        serde_json::from_value(serde_json::json!({ "sum": a + b + self.offset })).unwrap()
    }

    #[toolseal::tool(registry = "calc")]
    fn echo(&mut self, text: String, shout: Option<bool>, times: i64) -> String {
        self.offset += 1;
        format!("{text}{shout:?}{times}")
    }
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
    let mut calc = Calc { offset: 0 };
    calc.echo("x".into(), None, 1);
    assert_eq!(block_on(calc.add(1, 1)).sum, 3);
}
