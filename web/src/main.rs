fn main() {
    costlab_web::start();
}
