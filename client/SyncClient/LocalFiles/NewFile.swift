import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Creates the file at `path`, which must not exist yet (`O_EXCL`), holding exactly `data`, and
/// fsyncs it when `durable`. The staging of vault files and the base store both write this way.
/// - Throws: `POSIXError` (`ENOENT` when the folder is missing, `EEXIST` when the file exists).
func writeNewFile(_ data: Data, at path: String, mode: mode_t, durable: Bool) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    try data.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            offset += n
        }
    }
    if durable { guard fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) } }
}
