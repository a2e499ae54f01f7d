use std::panic;
/// Panics and catches it (unwinding through this library's own personality routine), then
/// uses std's allocator and a thread: returns 42 on success.
#[no_mangle]
pub extern "C" fn other_rust_check() -> i32 {
    panic::set_hook(Box::new(|_| {}));
    let caught = panic::catch_unwind(|| panic!("boom")).is_err();
    let v: Vec<u64> = (1..=8).collect();
    let sum = std::thread::spawn(move || v.iter().sum::<u64>()).join().unwrap();
    if caught && sum == 36 { 42 } else { 0 }
}
