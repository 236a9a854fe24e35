package import Foundation
package import NIOCore
import NIOPosix
import SyncProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Multipart uploads on the file store: an upload session is a folder `multipart/{session}` with
/// one `data` file that parts are written into at their offsets, and a marker per part that
/// arrived whole with its SHA-256 (written after the part's bytes are on disk, removed before
/// they are overwritten). Completing hashes `data` once and renames it into place.
extension FileBlobStore {
    func sessionFolder(_ uploadID: String) -> String { root.path + "/multipart/" + uploadID }

    package func startMultipart(_ key: BlobKey, session: UUID) async throws -> String {
        let uploadID = session.uuidString.lowercased()
        let folder = sessionFolder(uploadID)
        let root = root.path
        try await io.runIfActive { try Self.makeDirectories(folder, below: root) }
        return uploadID
    }

    package func partUpload(_ key: BlobKey, session: UUID, uploadID: String, part: BlobPart, expiresAt: Date) throws -> BlobUpload {
        BlobUpload(url: try urls.partURL(session: session, part: part, expiresAt: expiresAt))
    }

    package func writePart<Body: AsyncSequence & Sendable>(_ body: Body, key: BlobKey, uploadID: String, part: BlobPart) async throws where Body.Element == ByteBuffer {
        let folder = sessionFolder(uploadID)
        let data = folder + "/data", marker = folder + "/\(part.number)"
        let fd: Int32 = try await io.runIfActive {
            guard access(folder, F_OK) == 0 else { throw ServiceError.notFound("no such upload session (it was completed or aborted)") }
            unlink(marker)  // the bytes under it are about to change
            let fd = open(data, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            return fd
        }
        do {
            var hasher = ContentHasher()
            for try await chunk in body {
                guard hasher.byteCount + Int64(chunk.readableBytes) <= part.sizeBytes else {
                    throw ServiceError.contentMismatch("part \(part.number) is larger than its \(part.sizeBytes) bytes")
                }
                let at = part.offset + hasher.byteCount
                chunk.withUnsafeReadableBytes { hasher.update($0) }
                try await io.runIfActive { try chunk.withUnsafeReadableBytes { try Self.writeAll(fd, $0, at: at) } }
            }
            guard hasher.byteCount == part.sizeBytes else {
                throw ServiceError.contentMismatch("part \(part.number) has \(hasher.byteCount) bytes; it must have \(part.sizeBytes)")
            }
            guard hasher.finalize().hex == Hex.encode(part.sha256) else {
                throw ServiceError.contentMismatch("part \(part.number) does not hash to the SHA-256 its URL was signed for")
            }
            try await io.runIfActive {
                guard fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                try Self.writeMarker(marker, size: part.sizeBytes)
            }
        } catch {
            _ = try? await io.runIfActive { close(fd) }
            throw storageError(error)
        }
        _ = try? await io.runIfActive { close(fd) }
    }

    package func storedParts(_ key: BlobKey, uploadID: String) async throws -> [Int: Int64]? {
        let folder = sessionFolder(uploadID)
        return try await io.runIfActive {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
            var parts: [Int: Int64] = [:]
            for name in names {
                guard let number = Int(name), let text = try? String(contentsOfFile: folder + "/" + name, encoding: .utf8), let size = Int64(text) else { continue }
                parts[number] = size
            }
            return parts
        }
    }

    package func completeMultipart(_ key: BlobKey, uploadID: String, sizeBytes: Int64, partCount: Int) async throws {
        guard let stored = try await storedParts(key, uploadID: uploadID) else { throw ServiceError.notFound("no such upload session (it was completed or aborted)") }
        let missing = BlobPart.missing(partCount, stored: stored)
        guard missing.isEmpty else { throw ServiceError.uploadMissing(Self.missingText(missing, of: partCount)) }
        let folder = sessionFolder(uploadID)
        let data = folder + "/data"
        let destination = filePath(for: key)
        let root = root.path
        let (count, hash): (Int64, ContentHash) = try await io.runIfActive {
            // A part re-sent shorter than before cannot leave bytes past the end: the size is checked.
            let fd = open(data, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(fd) }
            var hasher = ContentHasher()
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
                if n < 0 { if errno == EINTR { continue }; throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                if n == 0 { break }
                buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
            return (hasher.byteCount, hasher.finalize())
        }
        guard count == sizeBytes, hash == key.contentHash else {
            try await abortMultipart(key, uploadID: uploadID)
            throw ServiceError.contentMismatch("the parts join to \(count) bytes hashing to \(hash), not \(sizeBytes) bytes hashing to \(key.contentHash) as declared at push")
        }
        try await io.runIfActive {
            try Self.moveIntoPlace(data, destination, below: root)
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    package func abortMultipart(_ key: BlobKey, uploadID: String) async throws {
        let folder = sessionFolder(uploadID)
        try await io.runIfActive {
            do {
                try FileManager.default.removeItem(atPath: folder)
            } catch CocoaError.fileNoSuchFile {
            }
        }
    }

    /// "parts 2, 5 of 9 were not uploaded" (the first 20 named).
    static func missingText(_ missing: [Int], of count: Int) -> String {
        let named = missing.prefix(20).map(String.init).joined(separator: ", ") + (missing.count > 20 ? ", …" : "")
        return "part\(missing.count == 1 ? "" : "s") \(named) of \(count) \(missing.count == 1 ? "was" : "were") not uploaded: send \(missing.count == 1 ? "it" : "them") and complete again"
    }

    /// `pwrite` of all of `bytes` at `offset`.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let written = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if written < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            done += written
        }
    }

    /// A part's marker, written whole or not at all.
    private static func writeMarker(_ path: String, size: Int64) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        try Array(String(size).utf8).withUnsafeBytes { try writeAll(fd, $0) }
        guard fsync(fd) == 0, rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
