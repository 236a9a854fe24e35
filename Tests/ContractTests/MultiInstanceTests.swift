import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Three `vaultsync-server` processes on one Postgres and one S3 store behind HAProxy, driven by
/// real `vaultsync` devices: nothing a request needs lives in one instance.
@Suite struct MultiInstanceTests: CLISuite {
    /// The folder's files (outside `.vaultsync`) and their bytes.
    func contents(_ folder: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let names = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        for name in names where !name.hasPrefix(".vaultsync") {
            var isDirectory: ObjCBool = false
            let url = folder.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[name] = try Data(contentsOf: url)
            }
        }
        return result
    }

    @Test func devicesBehindALoadBalancerConvergeAndSurviveAnInstanceDying() async throws {
        try await HeavyTests.oneAtATime {
            let cluster = try await LoadBalancedCluster.start(instances: 3)
            defer { cluster.stop() }
            let (laptop, phone, tablet) = (newFolder(), newFolder(), newFolder())
            defer { for folder in [laptop, phone, tablet] { try? FileManager.default.removeItem(at: folder) } }
            let email = "lb-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let link = ["--server", cluster.url.absoluteString, "--email", email]

            // Three devices through the balancer converge.
            try FileManager.default.createDirectory(at: laptop.appendingPathComponent("notes"), withIntermediateDirectories: true)
            for index in 0..<40 { try Data("# note \(index)\n".utf8).write(to: laptop.appendingPathComponent("notes/n\(index).md")) }
            try Data((0..<300_000).map { UInt8($0 % 251) }).write(to: laptop.appendingPathComponent("picture.bin"))
            let created = try await vaultsync(["init", laptop.path, "--create-account"] + link)
            #expect(created.exitCode == 0, "\(created)")
            for folder in [phone, tablet] {
                let joined = try await vaultsync(["init", folder.path] + link)
                #expect(joined.exitCode == 0, "\(joined)")
            }
            let original = try contents(laptop)
            let (onPhone, onTablet) = (try contents(phone), try contents(tablet))
            #expect(original.count == 41 && onPhone == original && onTablet == original)

            // The change feed reaches the phone's watcher whichever instance holds its WebSocket and
            // whichever instances take the laptop's syncs (round robin spreads them).
            let watch = try CLIProcess.start("vaultsync", ["watch", phone.path, "--json", "--debounce", "0.2"], environment: environment)
            defer { watch.send(SIGKILL) }
            try await eventually("the watcher is connected") { WatchLog(watch).connected }
            for round in 0..<3 {
                try Data("live \(round)".utf8).write(to: laptop.appendingPathComponent("live-\(round).md"))
                let synced = try await vaultsync(["sync", laptop.path])
                #expect(synced.exitCode == 0, "\(synced)")
                try await eventually("live-\(round).md reaches the phone by the feed") {
                    FileManager.default.fileExists(atPath: phone.appendingPathComponent("live-\(round).md").path)
                }
            }

            // An export started on one instance is served by another.
            let first = SyncAPI(baseURL: cluster.instances[0]), second = SyncAPI(baseURL: cluster.instances[1])
            let tokens = try await first.login(email: email, password: Self.password)
            let device = try await first.registerDevice(RegisterDeviceRequest(deviceName: "exporter", platform: "linux"), accessToken: tokens.accessToken)
            let session = VaultSession(accessToken: tokens.accessToken, deviceID: device.deviceID)
            var export = try await first.startExport(session)
            while export.state == .running {
                try await Task.sleep(for: .milliseconds(100))
                export = try await second.exportStatus(export.exportID, session: session)
            }
            #expect(export.state == .ready && export.fileCount == 44, "\(export)")
            let archive = try await SyncAPI(baseURL: cluster.url).downloadBlobToFile(from: try #require(export.downloadURL), session: session)
            defer { try? FileManager.default.removeItem(at: archive) }
            let manifest = try ExportArchive.verify(archive)
            #expect(manifest.files.count == 44, "the archive, checked entry by entry against its manifest")

            // An instance dies in the middle of the tablet's sync: the sync may fail, but the next one
            // goes through the others and nothing is lost.
            for index in 0..<150 { try Data("tablet \(index)".utf8).write(to: tablet.appendingPathComponent("t\(index).md")) }
            try Data((0..<24_000_000).map { UInt8($0 % 241) }).write(to: tablet.appendingPathComponent("video.bin"))
            let interrupted = try CLIProcess.start("vaultsync", ["sync", tablet.path], environment: environment)
            try await eventually("the tablet's sync is under way") { interrupted.stderrSoFar.contains("files") || !interrupted.isRunning }
            let duringSync = interrupted.isRunning
            cluster.kill(1)
            #expect(duringSync, "the instance died while the sync ran")
            _ = try await interrupted.finish()  // it may fail (a request died with the instance) or not (HAProxy retried elsewhere)
            var attempts = 0
            var rerun: CLIResult
            repeat {
                attempts += 1
                rerun = try await vaultsync(["sync", tablet.path])
            } while rerun.exitCode != 0 && attempts < 3
            #expect(rerun.exitCode == 0, "the tablet carries on through the other instances: \(rerun)")
            let synced = try await vaultsync(["sync", laptop.path])
            #expect(synced.exitCode == 0, "\(synced)")
            let expected = try contents(tablet)
            #expect(expected.count == 41 + 3 + 151)
            #expect(try contents(laptop) == expected, "everything the tablet wrote reached the laptop, byte for byte")
            try await eventually("the phone's watcher has it all too", within: .seconds(60)) { try contents(phone) == expected }
        }
    }
}
