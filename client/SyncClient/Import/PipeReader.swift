import Foundation

/// Buffered reads from a child process's output: a token up to a delimiter, or an exact count of
/// bytes, without reading the whole output into memory.
final class PipeReader {
    private let handle: FileHandle
    private var buffer = Data()
    private var start = 0
    private var ended = false

    init(_ handle: FileHandle) { self.handle = handle }

    /// The bytes up to `delimiter` (dropped), or the rest at the end (nil when nothing is left).
    func read(upTo delimiter: UInt8) throws -> Data? {
        while true {
            if let index = buffer[start...].firstIndex(of: delimiter) {
                defer { start = index + 1 }
                return Data(buffer[start..<index])
            }
            if ended {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return Data(buffer[start...])
            }
            try fill()
        }
    }

    /// Exactly `count` bytes.
    func read(count: Int) throws -> Data {
        while buffer.count - start < count {
            guard !ended else { throw HistorySourceError("the output ended \(count - (buffer.count - start)) bytes early") }
            try fill()
        }
        defer { start += count }
        return Data(buffer[start..<(start + count)])
    }

    private func fill() throws {
        if start > 0 {
            buffer.removeSubrange(..<start)
            start = 0
        }
        // One read(2): whatever the pipe holds now (FileHandle's read(upToCount:) waits for the
        // whole count, which an interactive pipe like `cat-file --batch` never sends).
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var count: Int
        repeat {
            count = chunk.withUnsafeMutableBytes { Foundation.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
        } while count < 0 && errno == EINTR
        guard count >= 0 else { throw HistorySourceError("reading git's output failed: \(String(cString: strerror(errno)))") }
        guard count > 0 else {
            ended = true
            return
        }
        buffer.append(contentsOf: chunk[..<count])
    }
}
