import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

/// Per-user quotas and limits, enforced at push and again at confirm.
@Suite struct QuotaTests {
    func push(_ device: TestDevice, _ path: String, _ bytes: Data, base: Int? = nil) async throws -> PushResponse {
        try await device.api.push(PushRequest(files: [PushFile(path: try VaultPath(path), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: base)]), session: device.session)
    }

    func error(_ body: () async throws -> Void) async -> SyncAPIError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? SyncAPIError
        }
    }

    /// The limits `vaultsync-server serve` takes as docs/deployment.md shows them, as flags and
    /// from the environment: an account's usage answer carries them, and the file quota refuses.
    @Test(arguments: [
        (["--quota-bytes", "5000", "--quota-files", "2", "--max-file-bytes", "300"], [String: String]()),
        ([], ["VAULTSYNC_QUOTA_BYTES": "5000", "VAULTSYNC_QUOTA_FILES": "2", "VAULTSYNC_MAX_FILE_BYTES": "300"]),
    ])
    func theServeCommandTakesTheDocumentedLimits(_ arguments: [String], _ environment: [String: String]) async throws {
        let data = try ServerProcess.newDataDirectory()
        let database = try await TestCluster.newDatabase()
        let server = try await ServerProcess.start(dataDirectory: data, arguments: ["--database-url", database] + arguments, environment: environment)
        do {
            let api = SyncAPI(baseURL: server.baseURL)
            let tokens = try await api.signup(email: "limits-\(UUID().uuidString.prefix(8).lowercased())@example.com", password: "correct horse battery")
            let info = try await api.registerDevice(RegisterDeviceRequest(deviceName: "laptop", platform: "linux"), accessToken: tokens.accessToken)
            let device = TestDevice(api: api, session: VaultSession(accessToken: tokens.accessToken, deviceID: info.deviceID), info: info)
            #expect(try await api.usage(device.session) == UsageResponse(
                bytesUsed: 0, quotaBytes: 5000, fileCount: 0, quotaFiles: 2, maxFileBytes: 300,
                breakdown: UsageBreakdown(currentBytes: 0, conflictBytes: 0, historyBytes: 0, exportBytes: 0, unreferencedBytes: 0)))
            try await device.write("a.md", "one")
            try await device.write("b.md", "two")
            #expect(await error { _ = try await push(device, "c.md", Data("three".utf8)) }?.code == .quotaExceeded)
            #expect(await error { _ = try await push(device, "b.md", Data(repeating: 1, count: 301), base: 1) }?.code == .fileTooLarge)
        } catch {
            _ = try? await server.stop()
            throw error
        }
        _ = try await server.stop()
        try? FileManager.default.removeItem(at: data)
    }

    @Test func overQuotaIs429WithUsageAndNothingIsReserved() async throws {
        try await TestServer.with(configure: { $0.quotaBytes = 200; $0.quotaFiles = 2 }) { server in
            let user = try await server.newUser()
            let device = try await user.newDevice()
            try await device.write("a.md", String(repeating: "a", count: 60))
            let refused = await error { _ = try await push(device, "b.md", Data(repeating: 1, count: 150)) }
            #expect(refused?.status == 429 && refused?.code == .quotaExceeded)
            if case .server(_, let body)? = refused {
                #expect(body.usage == UsageResponse(bytesUsed: 60, quotaBytes: 200, fileCount: 1, quotaFiles: 2, maxFileBytes: 1 << 30))
            }
            let orphan = try await device.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: try VaultPath("b.md"), version: 1)]), session: device.session)
            #expect(orphan.failed.map(\.code) == [.reservationNotFound], "nothing was reserved")
            // Growth that fits is fine; a replaced version stays kept, in history.
            #expect(try await device.write("a.md", String(repeating: "b", count: 90), base: 1).confirmed.count == 1)
            #expect(try await device.write("c.md", "0123456789").confirmed.count == 1)
            // The file quota: a third file is refused.
            #expect(await error { _ = try await push(device, "d.md", Data("x".utf8)) }?.code == .quotaExceeded)
            let usage = try await device.api.usage(device.session)
            #expect(usage.bytesUsed == 160 && usage.fileCount == 2)
            #expect(usage.breakdown == UsageBreakdown(currentBytes: 100, conflictBytes: 0, historyBytes: 60, exportBytes: 0, unreferencedBytes: 0))
            // Bytes the account keeps already add nothing: version 1's content, written again, fits a full account.
            #expect(try await VaultSyncServer.setUserLimits(configuration: server.configuration, logger: TestCluster.quietLogger, email: user.email, UserLimitOverrides(quotaBytes: 160)))
            #expect(await error { _ = try await device.write("a.md", "new bytes", base: 2) }?.code == .quotaExceeded, "new bytes need room")
            #expect(try await device.write("a.md", String(repeating: "a", count: 60), base: 2).confirmed.count == 1)
            // Deleting always works at the limit.
            _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("c.md"), baseVersion: 1)]), session: device.session)
            #expect(try await device.api.usage(device.session).bytesUsed == 160, "a deleted file's bytes stay kept until its retention ends")
        }
    }

    /// The quota bounds what the account keeps: current files, history (old versions, deleted
    /// files), conflict records and export archives, each content once; the usage answer says
    /// which is which, and an archive a newer one replaced counts until the purge removes it.
    @Test func everythingKeptCountsAndTheUsageSaysWhat() async throws {
        try await TestServer.with(configure: { $0.quotaBytes = 10_000 }) { server in
            let user = try await server.newUser()
            let device = try await user.newDevice()
            try await device.write("big.md", String(repeating: "a", count: 90))
            try await device.write("big.md", "small", base: 1)
            // Restoring version 1 adds nothing: its bytes were kept all along.
            let restored = try await device.api.restore(RestoreRequest(path: try VaultPath("big.md"), version: 1), session: device.session)
            #expect(restored.restored.version == 3 && restored.restored.sizeBytes == 90)
            try await device.write("gone.md", String(repeating: "g", count: 20))
            _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("gone.md"), baseVersion: 1)]), session: device.session)
            let mine = Data(repeating: 0x63, count: 30)
            let conflict = RecordConflictRequest(
                path: try VaultPath("big.md"), remoteVersion: 3, contentHash: ContentHasher.hash(mine), sizeBytes: 30, description: "both edited", content: mine)
            #expect(try await device.api.recordConflict(conflict, session: device.session).conflict.stored)
            var usage = try await device.api.usage(device.session)
            #expect(usage.breakdown == UsageBreakdown(currentBytes: 90, conflictBytes: 30, historyBytes: 25, exportBytes: 0, unreferencedBytes: 0))
            #expect(usage.bytesUsed == 145 && usage.fileCount == 1)

            let first = try await exported(device)
            usage = try await device.api.usage(device.session)
            #expect(usage.breakdown?.exportBytes == first && usage.bytesUsed == 145 + first)
            try await device.write("more.md", "m")
            let second = try await exported(device)
            usage = try await device.api.usage(device.session)
            // The first archive went when the second replaced it, not at the next purge (issue 53).
            #expect(usage.breakdown == UsageBreakdown(currentBytes: 91, conflictBytes: 30, historyBytes: 25, exportBytes: second, unreferencedBytes: 0))
            #expect(usage.bytesUsed == usage.breakdown?.total)

            // Over the quota because of what is kept, not what is current: new bytes are refused.
            #expect(try await VaultSyncServer.setUserLimits(configuration: server.configuration, logger: TestCluster.quietLogger, email: user.email, UserLimitOverrides(quotaBytes: 200)))
            let refused = await error { _ = try await push(device, "x.md", Data("x".utf8)) }
            #expect(refused?.code == .quotaExceeded && refused?.serverMessage.contains("history counts too") == true, "\(String(describing: refused))")
            let tooMuch = RecordConflictRequest(
                path: try VaultPath("more.md"), remoteVersion: 1, contentHash: ContentHasher.hash(Data("z".utf8)), sizeBytes: 1, description: "both edited", content: Data("z".utf8))
            #expect(await error { _ = try await device.api.recordConflict(tooMuch, session: device.session) }?.code == .quotaExceeded, "a conflict record's bytes count too")
        }
    }

    /// Starts an export of the device's vault and waits for its archive; its size.
    func exported(_ device: TestDevice) async throws -> Int64 {
        try #require(try await export(device).sizeBytes)
    }

    /// Starts an export of the device's vault and waits for it to end.
    func export(_ device: TestDevice) async throws -> ExportStatus {
        var status = try await device.api.startExport(device.session)
        while status.state == .running {
            try await Task.sleep(for: .milliseconds(50))
            status = try await device.api.exportStatus(status.exportID, session: device.session)
        }
        return status
    }

    /// Every byte a request stores counts when it is stored (issue 53): pushes whose inline bytes
    /// conflict (they reached 52 times the quota in five requests) and exports (one archive each,
    /// kept until the purge) stay within the quota, and an archive that does not fit is refused.
    @Test func conflictingPushesAndExportsStayWithinTheQuota() async throws {
        try await TestServer.with(configure: { $0.quotaBytes = 20_000 }) { server in
            let user = try await server.newUser()
            let device = try await user.newDevice()
            try await device.write("a.md", "first\n")
            var refused = 0
            for round in 1...5 {
                let bytes = Data((0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) })
                let file = PushFile(path: try VaultPath("a.md"), contentHash: ContentHasher.hash(bytes), sizeBytes: Int64(bytes.count), baseVersion: nil, content: bytes)
                do {
                    let answer = try await device.api.push(PushRequest(files: [file], commitInline: true), session: device.session)
                    #expect(answer.conflicts.map(\.path.rawValue) == ["a.md"], "round \(round)")
                } catch let error as SyncAPIError {
                    #expect(error.code == .quotaExceeded, "round \(round): \(error)")
                    refused += 1
                }
                let used = try await device.api.usage(device.session).bytesUsed
                #expect(used <= 20_000, "round \(round): \(used) bytes kept")
            }
            #expect(refused == 1, "four conflicts' bytes fit, the fifth's do not")

            // Exports: one archive is kept, the one it replaced goes at once.
            try await device.write("b.md", String(repeating: "b", count: 1_000))
            let unreferenced = try await device.api.usage(device.session).breakdown?.unreferencedBytes  // the conflicts' bytes
            #expect(unreferenced == 16_000)
            for round in 1...4 {
                try await device.write("c.md", "round \(round)", base: round == 1 ? nil : round - 1)
                let status = try await export(device)
                #expect(status.state == .ready, "round \(round): \(status)")
                let usage = try await device.api.usage(device.session)
                #expect(usage.breakdown?.exportBytes == status.sizeBytes && usage.breakdown?.unreferencedBytes == unreferenced && usage.bytesUsed <= 20_000, "round \(round): \(usage)")
            }
            // An archive that does not fit (the one it would replace counted as freed) is not kept, and says why.
            let noise = (0..<400).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()  // does not deflate away
            try await device.write("c.md", noise, base: 4)
            let before = try await device.api.usage(device.session)
            #expect(try await VaultSyncServer.setUserLimits(configuration: server.configuration, logger: TestCluster.quietLogger, email: user.email, UserLimitOverrides(quotaBytes: before.bytesUsed - (before.breakdown?.exportBytes ?? 0) + 10)))
            let full = try await export(device)
            #expect(full.state == .failed && full.error?.contains("does not fit") == true && full.error?.contains("storage full") == true, "\(full)")
            let after = try await device.api.usage(device.session)
            #expect(after.bytesUsed == before.bytesUsed && after.breakdown?.unreferencedBytes == unreferenced, "nothing of it kept: \(after)")
        }
    }

    @Test func devicesRacingForTheLastBytesCannotExceedTheQuota() async throws {
        try await TestServer.with(configure: { $0.quotaBytes = 200 }) { server in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let phone = try await user.newDevice("phone")
            // At push each fits (60 + 60 of 200); a third push counting both reservations does not.
            let a = Data(repeating: 1, count: 60), b = Data(repeating: 2, count: 60)
            let pushA = try await push(laptop, "a.bin", a), pushB = try await push(phone, "b.bin", b)
            #expect(await error { _ = try await push(phone, "c.bin", Data(repeating: 3, count: 81)) }?.code == .quotaExceeded, "open reservations count")
            try await laptop.api.uploadBlob(a, to: try #require(pushA.uploads.first?.uploadURL))
            try await phone.api.uploadBlob(b, to: try #require(pushB.uploads.first?.uploadURL))
            // The quota drops before the confirms (an admin, or the race the push check cannot see).
            #expect(try await VaultSyncServer.setUserLimits(configuration: server.configuration, logger: TestCluster.quietLogger, email: user.email, UserLimitOverrides(quotaBytes: 100)))
            async let confirmA = laptop.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: try VaultPath("a.bin"), version: 1)]), session: laptop.session)
            async let confirmB = phone.api.confirm(ConfirmRequest(confirmed: [ConfirmItem(path: try VaultPath("b.bin"), version: 1)]), session: phone.session)
            let (ra, rb) = try await (confirmA, confirmB)
            #expect(ra.confirmed.count + rb.confirmed.count == 1)
            #expect((ra.failed + rb.failed).map(\.code) == [.quotaExceeded])
            #expect(try await laptop.api.usage(laptop.session).bytesUsed == 60)
        }
    }

    @Test func perUserOverridesAndTheLargestFile() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let device = try await user.newDevice()
            #expect(try await device.api.usage(device.session).quotaBytes == nil, "unlimited by default")
            #expect(try await device.api.state(device.session).maxFileBytes == server.configuration.maxFileBytes, "the state answer says the largest file")
            #expect(try await VaultSyncServer.setUserLimits(configuration: server.configuration, logger: TestCluster.quietLogger, email: user.email, UserLimitOverrides(quotaBytes: 1000, maxFileBytes: 10)))
            #expect(try await device.api.state(device.session).maxFileBytes == 10, "the user's own limit, as the usage says it")
            let tooLarge = await error { _ = try await push(device, "big.bin", Data(repeating: 0, count: 11)) }
            #expect(tooLarge?.status == 413 && tooLarge?.code == .fileTooLarge)
            #expect(try await device.write("ok.md", "0123456789").confirmed.count == 1)
            let report = try #require(try await VaultSyncServer.userUsage(configuration: server.configuration, logger: TestCluster.quietLogger, email: user.email))
            #expect(report.0 == UserLimitOverrides(quotaBytes: 1000, maxFileBytes: 10))
            #expect(report.1.bytesUsed == 10 && report.1.quotaBytes == 1000 && report.1.maxFileBytes == 10)
            #expect(try await VaultSyncServer.setUserLimits(configuration: server.configuration, logger: TestCluster.quietLogger, email: "nobody@example.com", UserLimitOverrides()) == false)
        }
    }

    /// Deleting frees the account's room once the deletion's retention ends (here at once).
    @Test func aFullAccountKeepsFilesPendingAndEverythingElseSyncing() async throws {
        try await TestServer.with(configure: { $0.quotaBytes = 1000; $0.tombstoneRetention = .zero }) { server in
            let user = try await server.newUser()
            let laptop = try await TestVault.link(user, deviceName: "laptop")
            let phone = try await TestVault.link(user, deviceName: "phone")
            defer { laptop.remove(); phone.remove() }
            try laptop.write("old.md", String(repeating: "o", count: 600))
            try await laptop.sync()
            try await phone.sync()
            // The phone deletes a note while the laptop writes one that does not fit.
            try laptop.write("big.md", String(repeating: "b", count: 700))
            try laptop.write("huge.bin", String(repeating: "h", count: 2000))
            let full = try await laptop.sync()
            #expect(full.storageFull?.contains("storage full") == true)
            #expect(full.status == .error)
            #expect(Set(full.failures.map { String($0.prefix(while: { $0 != ":" })) }) == ["big.md", "huge.bin"])
            #expect(try await laptop.engine.state.meta(.storageFull) != nil)
            #expect(try await laptop.engine.state.failures().isEmpty, "a full account does not count towards parking")
            try phone.delete("old.md")
            try await phone.sync()
            server.clock.advance(by: 1)
            _ = try await server.purge()
            // Pulls and deletes still work; once the deletion's retention freed its bytes, big.md fits.
            let next = try await laptop.sync()
            #expect(next.deletedLocally.map(\.rawValue) == ["old.md"])
            #expect(next.pushed.map(\.rawValue) == ["big.md"], "\(next.failures)")
            #expect(next.failures.count == 1 && next.failures[0].hasPrefix("huge.bin"))
            try await phone.sync()
            #expect(phone.read("big.md") != nil)
        }
    }
}
