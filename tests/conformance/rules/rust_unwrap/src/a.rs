fn main() {
    let a = b.unwrap();
    let c = d.unwrap().unwrap();
}
