mod lib;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let first = args.get(1).unwrap();
    println!("first = {}", first);
    let total = args.len() + 1;
    println!("total = {}", total);
}
