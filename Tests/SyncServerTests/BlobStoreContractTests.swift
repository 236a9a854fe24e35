import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOPosix
import SyncProtocol
@testable import SyncServer
import TestSupport
import Testing

/// The same checks against both real `BlobStore`s: the file store and an S3 store on moto.
@Suite struct BlobStoreContractTests {
    enum Kind: String, CaseIterable { case file, s3 }

    static func withStore(_ kind: Kind, _ body: (any BlobStore) async throws -> Void) async throws {
        switch kind {
        case .file:
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-store-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let io = NIOThreadPool(numberOfThreads: 2)
            io.start()
            let urls = ServerBlobURLs(publicURL: { URL(string: "http://127.0.0.1:1")! }, signer: URLSigner(secret: SymmetricKey(size: .bits256)))
            do {
                try await body(try FileBlobStore(root: root, urls: urls, io: io))
            } catch {
                try? await io.shutdownGracefully()
                throw error
            }
            try await io.shutdownGracefully()
        case .s3:
            let endpoint = try await TestMoto.endpoint()
            let location = try S3Location(spec: "s3://store-\(UUID().uuidString.prefix(8).lowercased())?endpoint=\(endpoint.absoluteString)")
            let store = S3BlobStore(
                location: location, credentials: S3Credentials(accessKeyID: "testing", secretAccessKey: "testing"),
                http: HTTPClient.shared, now: { Date() }, logger: TestCluster.quietLogger)
            try await store.createBucketIfMissing()
            try await body(store)
        }
    }

    static func chunks(_ data: Data, size: Int) -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            var index = 0
            while index < data.count {
                continuation.yield(ByteBuffer(bytes: data[index..<min(data.count, index + size)]))
                index += size
            }
            continuation.finish()
        }
    }

    static func collect(_ content: BlobContent) async throws -> Data {
        var data = Data()
        for try await chunk in content.chunks { data.append(contentsOf: chunk.readableBytesView) }
        return data
    }

    /// `blobs gc` walks a store in pages: every blob once, in key order, with its size, however
    /// small the page (two vaults, so a page ends inside one and the next begins in another).
    @Test(arguments: Kind.allCases)
    func listingPagesThroughEveryBlobOnce(_ kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            var written: [String: Int64] = [:]
            for vault in [UUID(), UUID()] {
                for index in 0..<5 {
                    let bytes = Data("blob \(index) of \(vault)".utf8)
                    let key = BlobKey(vaultID: vault, contentHash: ContentHasher.hash(bytes))
                    try await store.write(Self.chunks(bytes, size: 4), key: key, sizeBytes: Int64(bytes.count))
                    written[key.rawValue] = Int64(bytes.count)
                }
            }
            var listed: [String] = []
            var sizes: [String: Int64] = [:]
            var after: String?
            repeat {
                let page = try await store.listBlobs(after: after, limit: 3)
                #expect(page.blobs.count <= 3 && page.strays.isEmpty)
                for blob in page.blobs {
                    listed.append(blob.key.rawValue)
                    sizes[blob.key.rawValue] = blob.sizeBytes
                }
                after = page.next
            } while after != nil
            #expect(listed == written.keys.sorted(), "every blob once, in key order")
            #expect(sizes == written)
        }
    }

    @Test(arguments: Kind.allCases)
    func writeReadSizeAndDelete(_ kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            let bytes = Data((0..<300_000).map { UInt8($0 % 253) })
            let key = BlobKey(vaultID: UUID(), contentHash: ContentHasher.hash(bytes))
            #expect(try await store.size(of: key) == nil)
            try await store.write(Self.chunks(bytes, size: 65_536), key: key, sizeBytes: Int64(bytes.count))
            #expect(try await store.size(of: key) == Int64(bytes.count))
            #expect(try await store.sizes(of: [key, BlobKey(vaultID: UUID(), contentHash: key.contentHash)]) == [key: Int64(bytes.count)])
            let content = try await store.read(key)
            #expect(content.size == Int64(bytes.count))
            #expect(try await Self.collect(content) == bytes)
            try await store.delete(key)
            #expect(try await store.size(of: key) == nil)
            try await store.delete(key)  // deleting what is gone is fine
            await #expect { try await store.read(key) } throws: { ($0 as? ServiceError) == .notFound("blob not found") }
        }
    }

    @Test(arguments: Kind.allCases)
    func bytesThatDoNotMatchTheKeyAreNotKept(_ kind: Kind) async throws {
        try await Self.withStore(kind) { store in
            let declared = Data("declared bytes".utf8)
            let key = BlobKey(vaultID: UUID(), contentHash: ContentHasher.hash(declared))
            for (wrong, size) in [(Data("DECLARED BYTES".utf8), declared.count), (Data("short".utf8), declared.count), (Data("declared bytes and more".utf8), declared.count)] {
                await #expect(throws: ServiceError.self, "\(kind) \(String(decoding: wrong, as: UTF8.self))") {
                    try await store.write(Self.chunks(wrong, size: 4), key: key, sizeBytes: Int64(size))
                }
                let stored = try await store.size(of: key)
                #expect(stored == nil, "\(kind)")
            }
        }
    }
}
