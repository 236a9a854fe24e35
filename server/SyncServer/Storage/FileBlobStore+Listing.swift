package import Foundation
import NIOPosix

/// Listing the file store for `blobs gc`: `vaults/<vault>/<prefix>/<hex>` walked in key order, a
/// folder at a time (memory holds one folder's names), and the multipart session folders.
extension FileBlobStore {
    package func listBlobs(after: String?, limit: Int) async throws -> StoreListingPage {
        let root = root.path
        return try await io.runIfActive {
            var page = StoreListingPage(blobs: [], strays: [], next: nil)
            var count = 0
            var last: String?
            func names(_ folder: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() }
            /// Whether nothing under `prefix` (a folder's key text, ending in `/`) comes after `after`.
            func done(_ prefix: String) -> Bool { after.map { !$0.hasPrefix(prefix) && $0 > prefix } ?? false }
            for vault in names(root + "/vaults") where !done("vaults/\(vault)/") {
                for prefix in names(root + "/vaults/\(vault)") where !done("vaults/\(vault)/\(prefix)/") {
                    for hex in names(root + "/vaults/\(vault)/\(prefix)") {
                        let text = BlobKey.rawValue(vault: vault, prefix: prefix, hex: hex)
                        if let after, text <= after { continue }
                        guard count < limit else {
                            page.next = last
                            return page
                        }
                        count += 1
                        last = text
                        // Attributes of the name itself: a link is a stray, not a blob.
                        let attributes = try? FileManager.default.attributesOfItem(atPath: root + "/" + text)
                        guard let key = BlobKey(vault: vault, prefix: prefix, hex: hex), attributes?[.type] as? FileAttributeType == .typeRegular,
                            let size = (attributes?[.size] as? NSNumber)?.int64Value, let modified = attributes?[.modificationDate] as? Date
                        else {
                            page.strays.append(text)
                            continue
                        }
                        page.blobs.append(StoredBlob(key: key, sizeBytes: size, modifiedAt: modified))
                    }
                }
            }
            return page
        }
    }

    /// The session folders under `multipart/`, each active at the newest write inside it.
    package func listUploads() async throws -> [StoredUpload] {
        let folder = root.path + "/multipart"
        return try await io.runIfActive {
            let sessions = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return sessions.compactMap { session -> StoredUpload? in
                let path = folder + "/" + session
                let inside = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).map { path + "/" + $0 }
                let times = ([path] + inside).compactMap { (try? FileManager.default.attributesOfItem(atPath: $0))?[.modificationDate] as? Date }
                guard let newest = times.max() else { return nil }
                return StoredUpload(uploadID: session, key: nil, activeAt: newest)
            }
        }
    }

    package func abortListed(_ upload: StoredUpload) async throws {
        guard !upload.uploadID.contains("/"), !upload.uploadID.hasPrefix(".") else { return }
        let folder = sessionFolder(upload.uploadID)
        try await io.runIfActive {
            do {
                try FileManager.default.removeItem(atPath: folder)
            } catch CocoaError.fileNoSuchFile {
            }
        }
    }
}
