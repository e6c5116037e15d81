//! A small static file server for `dist/`: enough for the playground, its embeds and the
//! end-to-end tests, with no dependency to install.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

pub fn run(listener: TcpListener, dist: PathBuf) {
    for stream in listener.incoming().flatten() {
        let dist = dist.clone();
        std::thread::spawn(move || {
            let _ = handle(stream, &dist);
        });
    }
}

fn handle(mut stream: TcpStream, dist: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    // Drain the headers; nothing in them changes the answer.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"GET only\n",
            method == "HEAD",
        );
    }
    let path = target.split(['?', '#']).next().unwrap_or("/");
    match resolve(dist, path) {
        Some(file) => match std::fs::read(&file) {
            Ok(body) => respond(
                &mut stream,
                "200 OK",
                content_type(&file),
                &body,
                method == "HEAD",
            ),
            Err(_) => respond(
                &mut stream,
                "404 Not Found",
                "text/plain",
                b"not found\n",
                method == "HEAD",
            ),
        },
        None => respond(
            &mut stream,
            "404 Not Found",
            "text/plain",
            b"not found\n",
            method == "HEAD",
        ),
    }
}

/// Maps a URL path to a file under `dist`, refusing anything that climbs out of it.
fn resolve(dist: &Path, url_path: &str) -> Option<PathBuf> {
    let mut file = dist.to_path_buf();
    for part in Path::new(url_path.trim_start_matches('/')).components() {
        match part {
            Component::Normal(p) => file.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if file.is_dir() {
        file.push("index.html");
    }
    file.is_file().then_some(file)
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "md" | "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    ty: &str,
    body: &[u8],
    head: bool,
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {ty}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if !head {
        stream.write_all(body)?;
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_stays_inside_dist() {
        let dist = std::env::temp_dir().join(format!("xtask-serve-{}", std::process::id()));
        std::fs::create_dir_all(dist.join("static")).unwrap();
        std::fs::write(dist.join("index.html"), "x").unwrap();
        std::fs::write(dist.join("static/a.json"), "{}").unwrap();
        assert_eq!(resolve(&dist, "/"), Some(dist.join("index.html")));
        assert_eq!(
            resolve(&dist, "/static/a.json"),
            Some(dist.join("static/a.json"))
        );
        assert_eq!(resolve(&dist, "/../etc/passwd"), None);
        assert_eq!(resolve(&dist, "/static/../../x"), None);
        assert_eq!(resolve(&dist, "/missing.js"), None);
        std::fs::remove_dir_all(&dist).unwrap();
    }
}
