import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking HTTP/1.1 client that PUTs bodies over keep-alive connections, one thread per
/// connection. The benchmark uses it to load the server; URLSession on Linux serialises requests
/// on one libcurl thread and caps out before the server does (both figures are reported).
struct KeepAliveUploader: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let connections: Int

    /// PUTs every (url, body) pair; all URLs must share one host and port.
    func put(_ work: [(URL, Data)]) throws {
        guard let first = work.first?.0, let host = first.host, let port = first.port else { return }
        let next = Counter()
        let failures = FailureBox()
        // Real threads: DispatchQueue.concurrentPerform would run only as many at once as there are cores.
        let group = DispatchGroup()
        for _ in 0..<min(connections, work.count) {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    var socket = try Connection(host: host, port: port)
                    while true {
                        let index = next.next()
                        guard index < work.count else { break }
                        let (url, body) = work[index]
                        var target = url.path
                        if let query = url.query { target += "?" + query }
                        let status = try socket.put(target: target, host: "\(host):\(port)", body: body)
                        guard status == 200 else { throw Failure(description: "PUT answered \(status)") }
                    }
                    socket.close()
                } catch {
                    failures.record(error)
                }
            }
            thread.start()
        }
        group.wait()
        if let error = failures.first { throw error }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = -1
        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            value += 1
            return value
        }
    }

    final class FailureBox: @unchecked Sendable {
        private let lock = NSLock()
        private var errors: [any Error] = []
        func record(_ error: any Error) {
            lock.lock()
            errors.append(error)
            lock.unlock()
        }
        var first: (any Error)? {
            lock.lock()
            defer { lock.unlock() }
            return errors.first
        }
    }

    struct Connection {
        let fd: Int32
        var buffer: [UInt8] = []

        init(host: String, port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr)
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard result == 0 else { throw Failure(description: "connect failed: errno \(errno)") }
        }

        mutating func put(target: String, host: String, body: Data) throws -> Int {
            var request = Array("PUT \(target) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
            request.append(contentsOf: body)
            var sent = 0
            while sent < request.count {
                let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, 0) }
                guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
                sent += n
            }
            let head = try readHead()
            let lines = head.split(separator: "\r\n")
            guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ")[1]) else { throw Failure(description: "bad status line") }
            let length = lines.dropFirst().first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            try readBody(length)
            return status
        }

        private mutating func fill() throws {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, 4096, 0) }
            guard n > 0 else { throw Failure(description: "connection closed") }
            buffer.append(contentsOf: chunk[0..<n])
        }

        private mutating func readHead() throws -> String {
            while true {
                if buffer.count >= 4, let end = (0...(buffer.count - 4)).first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }) {
                    let head = String(decoding: buffer[0..<end], as: UTF8.self)
                    buffer.removeFirst(end + 4)
                    return head
                }
                try fill()
            }
        }

        private mutating func readBody(_ length: Int) throws {
            while buffer.count < length { try fill() }
            buffer.removeFirst(length)
        }

        func close() { Glibc.close(fd) }
    }
}
