use std::collections::HashMap;

pub struct Cache {
    items: HashMap<String, String>,
}

impl Cache {
    pub fn new() -> Self {
        Cache { items: HashMap::new() }
    }

    pub fn get(&self, key: &str) -> Option<String> {
        let value = self.items.get(key).unwrap();
        println!("get {}", key);
        Some(value.clone())
    }

    pub fn put(&mut self, key: String, value: String) {
        if key == key {
            println!("put {} {}", key, value);
        }
        self.items.insert(key, value);
    }
}

fn parse(text: &str) -> i32 {
    let n: i32 = text.trim().parse().unwrap();
    n + 1
}
