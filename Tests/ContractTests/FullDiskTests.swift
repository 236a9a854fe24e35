import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The file blob store on a disk that fills up: a small tmpfs where the tests may mount one,
/// else writes failing with an injected ENOSPC (``SmallDisk``).
@Suite struct FullDiskTests {
    func withServerOnSmallDisk(_ body: (TestServer, SmallDisk) async throws -> Void) async throws {
        let disk = try SmallDisk()
        defer { disk.remove() }
        try await TestServer.with(configure: { $0.blobStore = disk.blobStoreSpec }) { server in try await body(server, disk) }
    }

    /// A full disk answers an upload `507 storage_unavailable` with `Retry-After`, leaves no
    /// temporary file, and keeps the reservation: once space is free the same upload URL works
    /// and the push confirms.
    @Test func aFullDiskRefusesUploadsClearlyAndKeepsTheReservation() async throws {
        try await withServerOnSmallDisk { server, disk in
            let device = try await server.newUser().newDevice()
            let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let push = try await device.api.push(PushRequest(files: [
                PushFile(path: try VaultPath("scan.pdf"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil)
            ]), session: device.session)
            let upload = try #require(push.uploads.first?.uploadURL)
            try disk.fill()

            let refused = try await RawHTTP.send("PUT", upload, body: bytes, headers: ["Content-Type": "application/octet-stream"])
            #expect(refused.status == 507 && refused.code == .storageUnavailable, "\(refused.status) \(String(decoding: refused.body, as: UTF8.self))")
            #expect(refused.retryAfter == "60")
            #expect(refused.envelope?.error.message.contains("storage is full") == true)
            #expect(disk.temporaryFiles.isEmpty, "a failed write leaves no temporary file: \(disk.temporaryFiles)")
            let health = try await RawHTTP.send("GET", server.baseURL.appendingPathComponent("health"))
            let degraded = try WireCoding.decoder().decode(HealthResponse.self, from: health.body)
            #expect(health.status == 200 && degraded.status == "degraded" && degraded.blobStorage == "full" && degraded.database == "ok")

            // Inline bytes the server could not store fall back to an upload, which meets the same full disk.
            let note = Data("a note".utf8)
            let inline = try await device.api.push(PushRequest(files: [
                PushFile(path: try VaultPath("note.md"), contentHash: ContentHasher.hash(note), sizeBytes: Int64(note.count), baseVersion: nil, content: note)
            ]), session: device.session)
            #expect(inline.uploads.first?.uploadRequired == true)
            let noteURL = try #require(inline.uploads.first?.uploadURL)
            #expect(try await RawHTTP.send("PUT", noteURL, body: note, headers: ["Content-Type": "application/octet-stream"]).status == 507)
            #expect(disk.temporaryFiles.isEmpty)

            disk.free()
            let stored = try await RawHTTP.send("PUT", upload, body: bytes, headers: ["Content-Type": "application/octet-stream"])
            #expect(stored.status == 200 || stored.status == 201 || stored.status == 204, "\(stored.status)")
            let confirm = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: try VaultPath("scan.pdf"), version: push.uploads[0].newVersion)]), session: device.session)
            #expect(confirm.confirmed.map(\.path.rawValue) == ["scan.pdf"], "\(confirm.failed)")
            let healthy = try await server.api.health()
            #expect(healthy.status == "ok" && healthy.blobStorage == "ok")
        }
    }

    /// The client keeps files the full server could not store pending, says why, never parks them
    /// however many syncs meet the full disk, and sends them by itself once space is free.
    @Test func theClientWaitsOutAFullServerWithoutParking() async throws {
        try await withServerOnSmallDisk { server, disk in
            let vault = try await TestVault.link(try await server.newUser(), deviceName: "laptop")
            defer { vault.remove() }
            try vault.write("notes/a.md", "small")
            try vault.write("big.txt", String(repeating: "0123456789", count: 20_000))
            try disk.fill()
            for _ in 0..<(SyncEngine.parkAfterFailures + 1) {
                let report = try await vault.sync()
                #expect(report.storageFull?.contains("storage is full") == true, "\(report)")
                #expect(report.pushed.isEmpty && report.parked.isEmpty)
                #expect(Set(report.failures.map { String($0.prefix(while: { $0 != ":" })) }) == ["notes/a.md", "big.txt"])
            }
            #expect(try await vault.engine.state.failures().isEmpty, "a full server does not count towards parking")
            #expect(try await vault.engine.state.meta(.storageFull) != nil)
            #expect(disk.temporaryFiles.isEmpty)

            disk.free()
            let report = try await vault.sync()
            #expect(Set(report.pushed.map(\.rawValue)) == ["notes/a.md", "big.txt"], "\(report)")
            #expect(report.status == .idle && report.storageFull == nil)
            #expect(try await vault.engine.state.meta(.storageFull) == nil)
        }
    }

    /// Temporary files of interrupted uploads go: all of them at start-up, and those untouched for
    /// an hour in the purge job (one still being written stays).
    @Test func temporaryFilesOfInterruptedUploadsAreRemoved() async throws {
        let folder = URL(fileURLWithPath: "/tmp/vaultsync-blobs-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tmp = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        try Data("left by a crash".utf8).write(to: tmp.appendingPathComponent("crashed"))
        try await TestServer.with(configure: { $0.blobStore = "file://\(folder.path)" }) { server in
            #expect(!FileManager.default.fileExists(atPath: tmp.appendingPathComponent("crashed").path), "removed at start-up")
            let old = tmp.appendingPathComponent("old"), recent = tmp.appendingPathComponent("recent")
            for (file, age) in [(old, 2.0 * 3600), (recent, 600.0)] {
                try Data("partial".utf8).write(to: file)
                try FileManager.default.setAttributes([.modificationDate: server.clock.now.addingTimeInterval(-age)], ofItemAtPath: file.path)
            }
            let report = try await server.purge()
            #expect(report.staleUploads == 1)
            #expect(!FileManager.default.fileExists(atPath: old.path))
            #expect(FileManager.default.fileExists(atPath: recent.path))
        }
    }

    /// An upload in progress holds its temporary file: another instance starting on the same
    /// folder, and a purge whose clock runs hours ahead of the file's time, leave it alone, and
    /// the upload completes.
    @Test func anUploadInProgressOutlivesAnotherInstancesStartAndAPurge() async throws {
        // The upload stalls while the other instance restarts and the purge runs: under the whole
        // suite on two cores that took over the default minute a connection may stall, and the
        // server rightly closed it (the write removing its own temporary file). For the same
        // reason the body's minimum rate is off: the stall is the test's, not a slow client's.
        try await TestServer.withTwoInstances(configure: { $0.connectionIdleTimeout = .seconds(900); $0.minimumBodyRate = 0 }) { first, second in
            let device = try await first.newUser().newDevice()
            let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let push = try await device.api.push(PushRequest(files: [
                PushFile(path: try VaultPath("scan.pdf"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil)
            ]), session: device.session)
            let url = try #require(push.uploads.first?.uploadURL)
            let tmp = first.dataDirectory.appendingPathComponent("blobs/tmp").path
            let upload = try HalfSentUpload(to: url, bytes: bytes, firstPart: 100_000)
            let deadline = ContinuousClock.now + .seconds(60)
            while ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let writing = (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []
            try #require(writing.count == 1, "the upload's temporary file: \(writing)")

            try await second.restart()
            first.clock.advance(by: 3 * 3600)
            let report = try await first.purge()
            #expect(report.staleUploads == 0)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []) == writing, "the temporary file is still there")

            let answer = try await upload.finish(within: .seconds(300))
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            let stored = first.storedBlobFiles()
            #expect(stored.count == 1, "\(stored)")
            let blobs = first.dataDirectory.appendingPathComponent("blobs")
            #expect(stored.first.flatMap { FileManager.default.contents(atPath: blobs.appendingPathComponent($0).path) } == bytes)
        }
    }
}
