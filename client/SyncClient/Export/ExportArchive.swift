public import Foundation
public import SyncProtocol
import ZIPFoundation

/// Reading a VaultSync export: the manifest, and every entry checked against it. An archive is
/// untrusted input: the manifest is read only up to a bound, and an entry stops being read the
/// moment it holds more than the manifest says (a zip bomb fails at once, memory flat).
public enum ExportArchive {
    /// The largest manifest read (about 200 bytes per file: over a million files).
    public static let maxManifestBytes = 256 << 20

    /// Opens `zip`, reads its manifest and checks that every listed file is there with exactly the
    /// listed size and SHA-256, and that nothing else is (streaming: memory does not grow with the files).
    /// - Throws: ``ExportArchiveError`` naming the first problem.
    public static func verify(_ zip: URL) throws -> ExportManifest {
        let archive = try open(zip)
        let manifest = try readManifest(archive)
        var listed = Set<String>()
        for file in manifest.files {
            guard listed.insert(file.path.rawValue).inserted else { throw ExportArchiveError.invalid("'\(file.path)' is listed twice in the manifest") }
            guard let entry = archive[file.path.rawValue] else { throw ExportArchiveError.missing(file.path.rawValue) }
            try check(entry, in: archive, against: file) { _ in }
        }
        for entry in archive where entry.type == .file && entry.path != ExportManifest.entryName && !listed.contains(entry.path) {
            throw ExportArchiveError.invalid("'\(entry.path)' is in the archive but not in its manifest")
        }
        return manifest
    }

    /// Writes every file of a verified archive under `root` (each checked again while written,
    /// staged in `staging` and renamed into place), with its modification time from the manifest.
    public static func extract(_ zip: URL, manifest: ExportManifest, into root: URL, staging: URL) throws {
        let archive = try open(zip)
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        for file in manifest.files {
            guard let entry = archive[file.path.rawValue] else { throw ExportArchiveError.missing(file.path.rawValue) }
            let temporary = staging.appendingPathComponent("import-\(UUID().uuidString)")
            FileManager.default.createFile(atPath: temporary.path, contents: nil)
            let handle = try FileHandle(forWritingTo: temporary)
            do {
                try check(entry, in: archive, against: file) { try handle.write(contentsOf: $0) }
                try handle.synchronize()
                try handle.close()
            } catch {
                try? handle.close()
                try? FileManager.default.removeItem(at: temporary)
                throw error
            }
            let target = root.appendingPathComponent(file.path.rawValue)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.modificationDate: file.updatedAt], ofItemAtPath: temporary.path)
            guard rename(temporary.path, target.path) == 0 else {
                try? FileManager.default.removeItem(at: temporary)
                throw ExportArchiveError.invalid("could not write '\(file.path)': \(String(cString: strerror(errno)))")
            }
        }
    }

    static func open(_ zip: URL) throws -> Archive {
        do {
            return try Archive(url: zip, accessMode: .read)
        } catch {
            throw ExportArchiveError.invalid("'\(zip.path)' is not a readable zip archive: \(error)")
        }
    }

    private static func readManifest(_ archive: Archive) throws -> ExportManifest {
        guard let entry = archive[ExportManifest.entryName] else { throw ExportArchiveError.missing(ExportManifest.entryName) }
        let tooLarge = ExportArchiveError.invalid("\(ExportManifest.entryName) is larger than \(maxManifestBytes >> 20) MiB: not a VaultSync manifest")
        guard entry.uncompressedSize <= UInt64(maxManifestBytes) else { throw tooLarge }
        var data = Data()
        // The declared size may lie: the bound holds for what inflates.
        _ = try archive.extract(entry) { chunk in
            guard data.count + chunk.count <= maxManifestBytes else { throw tooLarge }
            data.append(chunk)
        }
        do {
            return try WireCoding.decoder().decode(ExportManifest.self, from: data)
        } catch {
            throw ExportArchiveError.invalid("\(ExportManifest.entryName) is not a VaultSync manifest: \(error)")
        }
    }

    /// Streams an entry through the hasher (and `consume`), then compares size and hash; stops
    /// reading as soon as the entry holds more bytes than the manifest lists.
    static func check(_ entry: Entry, in archive: Archive, against file: ExportedFile, consume: (Data) throws -> Void) throws {
        guard entry.uncompressedSize == UInt64(file.sizeBytes) else {
            throw ExportArchiveError.mismatch(file.path.rawValue, "the archive says \(entry.uncompressedSize) bytes, the manifest \(file.sizeBytes)")
        }
        var hasher = ContentHasher()
        _ = try archive.extract(entry) { chunk in
            guard hasher.byteCount + Int64(chunk.count) <= file.sizeBytes else {
                throw ExportArchiveError.mismatch(file.path.rawValue, "it holds more than the \(file.sizeBytes) bytes the manifest says; not read further")
            }
            chunk.withUnsafeBytes { hasher.update($0) }
            try consume(chunk)
        }
        guard hasher.byteCount == file.sizeBytes else {
            throw ExportArchiveError.mismatch(file.path.rawValue, "\(hasher.byteCount) bytes, the manifest says \(file.sizeBytes)")
        }
        let hash = hasher.finalize()
        guard hash == file.contentHash else { throw ExportArchiveError.mismatch(file.path.rawValue, "content hashes to \(hash), the manifest says \(file.contentHash)") }
    }
}

/// Why an export archive was not accepted.
public enum ExportArchiveError: Error, Equatable, CustomStringConvertible {
    case invalid(String)
    case missing(String)
    case mismatch(String, String)

    public var description: String {
        switch self {
        case .invalid(let reason): reason
        case .missing(let path): "'\(path)' is missing from the archive"
        case .mismatch(let path, let reason): "'\(path)' in the archive does not match its manifest: \(reason)"
        }
    }
}
