import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// `blobs gc` on the file store and on S3 (moto): orphans made the ways they happen (a vault
/// deleted in the middle of a multipart upload, an account deleted while its presigned upload was
/// on the way, a temporary file of a crash) are removed once they are older than the upload grace,
/// and not before; what a version names is never touched.
@Suite struct BlobGarbageTests {
    @Test(arguments: [BlobBackend.file, .s3Presigned])
    func orphansGoOnceOlderThanTheGraceAndNamedBlobsStay(_ backend: BlobBackend) async throws {
        let configure = try await backend.configuration()
        try await TestServer.with(configure: configure) { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            try await laptop.write("kept.md", "named by a version")

            // A vault deleted while one part of a large file was uploaded.
            let big = try await server.api.createVault(named: "big", accessToken: user.tokens.accessToken)
            let inBig = laptop.inVault("big")
            let large = ResumableTransferTests.content(seed: 11).prefix(Int(MultipartRules.minimumFileBytes))
            let hash = ContentHasher.hash(large)
            let push = try await inBig.api.push(
                PushRequest(files: [PushFile(path: try VaultPath("large.bin"), contentHash: hash, sizeBytes: Int64(large.count), baseVersion: nil)]), session: inBig.session)
            #expect(push.uploads.first?.uploadRequired == true)
            let session = try await inBig.api.startUpload(
                StartUploadRequest(contentHash: hash, sizeBytes: Int64(large.count), partSize: MultipartRules.minimumPartBytes), session: inBig.session)
            let part = large.prefix(Int(MultipartRules.minimumPartBytes))
            let targets = try await inBig.api.uploadParts(
                session.uploadID, UploadPartsRequest(parts: [PartChecksum(number: 1, sha256: String(ContentHasher.hash(part).hex))]), session: inBig.session)
            let target = try #require(targets.parts.first)
            try await inBig.api.uploadBlob(part, to: target.uploadURL, headers: target.uploadHeaders ?? [:], session: inBig.session)
            _ = try await server.api.deleteVault(big.vaultID, confirmName: "big", accessToken: user.tokens.accessToken)

            // An account deleted while its presigned upload was on the way: the PUT lands after.
            let other = try await server.newUser()
            let phone = try await other.newDevice("phone")
            let late = Data("uploaded after its account was deleted".utf8)
            let answer = try await phone.api.push(
                PushRequest(files: [PushFile(path: try VaultPath("late.md"), contentHash: ContentHasher.hash(late), sizeBytes: Int64(late.count), baseVersion: nil)]),
                session: phone.session)
            let upload = try #require(answer.uploads.first?.uploadURL)
            _ = try await server.api.deleteAccount(password: other.password, accessToken: other.tokens.accessToken)
            try await phone.api.uploadBlob(late, to: upload, headers: answer.uploads.first?.uploadHeaders ?? [:])

            // A crash in the middle of writing a blob (the file store's temporary file).
            let crashed = server.dataDirectory.appendingPathComponent("blobs/tmp/crashed-upload")
            if backend == .file { try Data("half a blob".utf8).write(to: crashed) }
            /// Blobs in the store (not uploads in progress).
            func blobs() async throws -> Set<String> { try await server.storedBlobs().filter { $0.hasPrefix("vaults/") } }
            #expect(try await blobs().count == 2, "kept.md and the late upload")

            func gc(dryRun: Bool, daysLater: Double) async throws -> GarbageReport {
                let now = Date().addingTimeInterval(daysLater * 86400)
                return try await VaultSyncServer.collectGarbage(configuration: server.configuration, dryRun: dryRun, logger: TestCluster.quietLogger, now: { now })
            }
            // Today, everything unnamed is inside the 24 h grace: an upload in flight looks the same.
            let today = try await gc(dryRun: false, daysLater: 0)
            #expect(today.listed == 2 && today.young == 1 && today.orphans == 0 && today.uploadsAborted == 0 && today.temporaryFiles == 0, "\(today)")
            #expect(try await blobs().count == 2)

            // Two days on: counted by a dry run, then removed; a second run finds nothing.
            let counted = try await gc(dryRun: true, daysLater: 2)
            #expect(counted.orphans == 1 && counted.orphanBytes == Int64(late.count) && counted.uploadsAborted == 1, "\(counted)")
            #expect(try await blobs().count == 2, "a dry run removes nothing")
            let collected = try await gc(dryRun: false, daysLater: 2)
            #expect(collected.orphans == 1 && collected.uploadsAborted == 1 && collected.strays.isEmpty, "\(collected)")
            #expect(collected.temporaryFiles == (backend == .file ? 1 : 0), "\(collected)")
            #expect(try await blobs().count == 1)
            #expect(try await laptop.read("kept.md") == "named by a version", "what a version names stays")
            if backend == .file { #expect(!FileManager.default.fileExists(atPath: crashed.path)) }
            let again = try await gc(dryRun: false, daysLater: 2)
            #expect(again.orphans == 0 && again.uploadsAborted == 0 && again.listed == 1, "\(again)")
        }
    }

    /// `serve --gc-interval`: the server runs the collection itself and counts what it removed.
    @Test func theServerCollectsOnItsSchedule() async throws {
        let token = "scrape-me-0123456789"
        try await TestServer.with(configure: { $0.gcInterval = .seconds(1); $0.metricsToken = token }) { server in
            let orphan = Data("bytes no row ever named".utf8)
            let hash = ContentHasher.hash(orphan)
            let key = "blobs/vaults/\(UUID().uuidString.lowercased())/\(hash.hex.prefix(2))/\(hash.hex)"
            let file = server.dataDirectory.appendingPathComponent(key)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try orphan.write(to: file)
            server.clock.advance(by: 2 * 86400)  // past the 24 h upload grace
            // The run counts what it removed when it ends (after the bytes went): wait for both.
            func counted() async throws -> Bool {
                let scraped = try await RawHTTP.send("GET", server.baseURL.appendingPathComponent("metrics"), headers: ["Authorization": "Bearer \(token)"], protocolVersion: nil)
                return String(decoding: scraped.body, as: UTF8.self).split(separator: "\n").contains { $0.hasPrefix("vaultsync_purge_removed_total{kind=\"orphan_blobs\"} 1") }
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let gone = !FileManager.default.fileExists(atPath: file.path)
                if gone, try await counted() { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(!FileManager.default.fileExists(atPath: file.path), "the scheduled collection removed the orphan")
            #expect(try await counted(), "and counted it in /metrics")
        }
    }

    /// The command as an operator runs it: a real process, a dry run that names what it would do.
    @Test func theCommandCountsBeforeItRemoves() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice("laptop")
            try await device.write("a.md", "named")
            let stray = server.dataDirectory.appendingPathComponent("blobs/vaults/not-a-vault/zz")
            try FileManager.default.createDirectory(at: stray, withIntermediateDirectories: true)
            try Data("?".utf8).write(to: stray.appendingPathComponent("not-a-hash"))
            let base = ["blobs", "gc", "--data-dir", server.dataDirectory.path, "--database-url", server.databaseURL, "--log-level", "warning"]
            let dry = try await CLIProcess.run("vaultsync-server", base + ["--dry-run", "--json", "--upload-grace", "0"])
            #expect(dry.exitCode == 0, "\(dry)")
            let report = try dry.json()
            #expect(report["dry_run"] as? Bool == true && report["listed"] as? Int == 1 && report["orphans"] as? Int == 0, "\(dry)")
            #expect(report["strays"] as? [String] == ["vaults/not-a-vault/zz/not-a-hash"], "\(dry)")
            let text = try await CLIProcess.run("vaultsync-server", base + ["--upload-grace", "0"])
            #expect(text.exitCode == 0 && text.stdout.contains("listed 1 blobs: removed 0") && text.stdout.contains("left alone: vaults/not-a-vault/zz/not-a-hash"), "\(text)")
            #expect(FileManager.default.fileExists(atPath: stray.appendingPathComponent("not-a-hash").path), "a name that is not a blob key stays")
            let bad = try await CLIProcess.run("vaultsync-server", base + ["--upload-grace", "soon"])
            #expect(bad.exitCode == 64 && bad.stderr.contains("--upload-grace"), "\(bad)")
        }
    }
}
