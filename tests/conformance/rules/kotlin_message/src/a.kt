fun main() {
    println("hi")
    print(1)
}
