package import Foundation
package import NIOCore
import NIOPosix
import NIOConcurrencyHelpers
import SyncProtocol
import Glibc

/// Write failures injected by tests that cannot make a disk full for real (no permission to mount
/// a small tmpfs): writes of stores under a root fail with the given error, after the temporary
/// file was created, as on a full disk. Empty, and never consulted beyond one lookup, otherwise.
package enum FileStoreFaults {
    private static let failures = NIOLockedValueBox<[String: POSIXErrorCode]>([:])

    /// Makes writes under `root` fail with `code`, or succeed again when nil.
    package static func failWrites(under root: String, with code: POSIXErrorCode?) {
        failures.withLockedValue { $0[root] = code }
    }

    static func failure(under root: String) -> POSIXErrorCode? {
        failures.withLockedValue { $0.isEmpty ? nil : $0[root] }
    }
}

/// An open file descriptor, closed when the last reference goes (also when a reader stops early).
final class OpenFile: Sendable {
    let fd: Int32
    let size: Int64
    /// Opens `path` for reading on the I/O threads, positioned at `offset`; nil when there is no such file.
    static func open(_ path: String, io: NIOThreadPool, at offset: Int64 = 0) async throws -> OpenFile? {
        try await io.runIfActive { () -> OpenFile? in
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            let size = lseek(fd, 0, SEEK_END)
            lseek(fd, off_t(offset), SEEK_SET)
            return OpenFile(fd: fd, size: Int64(size))
        }
    }

    init(fd: Int32, size: Int64) {
        self.fd = fd
        self.size = size
    }
    deinit { close(fd) }
}

/// A file's bytes in 128 KiB chunks, each read on the I/O threads.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let file: OpenFile
    let io: NIOThreadPool

    struct Iterator: AsyncIteratorProtocol {
        let file: OpenFile
        let io: NIOThreadPool

        mutating func next() async throws -> ByteBuffer? {
            let fd = file.fd
            let chunk: ByteBuffer = try await io.runIfActive {
                var buffer = ByteBufferAllocator().buffer(capacity: 128 * 1024)
                _ = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 128 * 1024) { raw -> Int in
                    let n = Glibc.read(fd, raw.baseAddress!, raw.count)
                    guard n >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                    return n
                }
                return buffer
            }
            return chunk.readableBytes == 0 ? nil : chunk
        }
    }

    func makeAsyncIterator() -> Iterator { Iterator(file: file, io: io) }
}
