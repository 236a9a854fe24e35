public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A `PUT` sent in two halves over a real socket, so that a test can act on the server while an
/// upload is in progress: ``init(to:bytes:firstPart:)`` sends the head and the first bytes,
/// ``finish()`` the rest, and reads the status line.
public final class HalfSentUpload: @unchecked Sendable {
    private let descriptor: Int32
    private let rest: Data

    public init(to url: URL, bytes: Data, firstPart count: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(url.port ?? 80).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        descriptor = fd
        rest = bytes.dropFirst(count)
        let target = url.path + (url.query.map { "?" + $0 } ?? "")
        let head = "PUT \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port ?? 80)\r\nContent-Type: application/octet-stream\r\nContent-Length: \(bytes.count)\r\n\r\n"
        try send(Data(head.utf8) + bytes.prefix(count))
    }

    deinit { close(descriptor) }

    /// Sends the rest of the body and returns the answer's status line (`HTTP/1.1 201 Created`),
    /// or what arrived before the server closed the connection; waits up to `limit`.
    public func finish(within limit: Duration = .seconds(120)) async throws -> String {
        try send(rest)
        let deadline = ContinuousClock.now + limit
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Polled without blocking: a blocked thread of the cooperative pool stalls the server beside it.
        while ContinuousClock.now < deadline, !received.contains(UInt8(ascii: "\n")) {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 0) > 0 else {
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received.append(contentsOf: buffer[..<count])
        }
        return String(decoding: received, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
    }

    private func send(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                offset += sent
            }
        }
    }
}
