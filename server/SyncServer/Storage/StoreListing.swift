package import Foundation

/// A blob as the store lists it.
package struct StoredBlob: Sendable, Equatable {
    package var key: BlobKey
    package var sizeBytes: Int64
    /// When its bytes were last written (an S3 object's `LastModified`, a file's modification time).
    package var modifiedAt: Date

    package init(key: BlobKey, sizeBytes: Int64, modifiedAt: Date) {
        self.key = key
        self.sizeBytes = sizeBytes
        self.modifiedAt = modifiedAt
    }
}

/// One page of ``BlobStore/listBlobs(after:limit:)``.
package struct StoreListingPage: Sendable {
    package var blobs: [StoredBlob]
    /// Names under the blob prefix that are not blob keys: reported, never deleted.
    package var strays: [String]
    /// Where the next page starts (`after`); nil after the last page.
    package var next: String?

    package init(blobs: [StoredBlob], strays: [String], next: String?) {
        self.blobs = blobs
        self.strays = strays
        self.next = next
    }
}

/// A multipart upload the store holds: its id, the blob it is for when the store knows, and when
/// it was last active.
package struct StoredUpload: Sendable, Equatable {
    package var uploadID: String
    package var key: BlobKey?
    /// When it was last active by the store's clock: an S3 upload's start, a file-store session's last write.
    package var activeAt: Date

    package init(uploadID: String, key: BlobKey?, activeAt: Date) {
        self.uploadID = uploadID
        self.key = key
        self.activeAt = activeAt
    }
}
