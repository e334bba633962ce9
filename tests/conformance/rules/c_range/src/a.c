int main() {
    foo(1);
    bar(2);
}
