fn f(v: &mut Vec<i64>) {
    v.push(1);
    v.push(x);
    v.push("s");
}
