import Foundation
import TestSupport
import Testing

/// Obsidian's configuration between a desktop and a phone (issue 58), with real `vaultsync`
/// processes and the files Obsidian writes: which panes are open stays each device's, settings
/// and plugins' data merge key by key, plugins themselves sync.
@Suite struct ObsidianSettingsCLITests: CLISuite {
    /// What a desktop's `.obsidian/` holds after a few days (the files and keys Obsidian writes).
    static let tree: [String: String] = [
        ".obsidian/app.json": #"{"alwaysUpdateLinks": true, "showLineNumber": false, "vimMode": false}"#,
        ".obsidian/appearance.json": #"{"baseFontSize": 16, "theme": "obsidian"}"#,
        ".obsidian/core-plugins.json": #"["file-explorer", "global-search", "backlink", "daily-notes"]"#,
        ".obsidian/community-plugins.json": #"["dataview"]"#,
        ".obsidian/hotkeys.json": #"{"editor:toggle-bold": [{"modifiers": ["Mod"], "key": "B"}]}"#,
        ".obsidian/workspace.json": #"{"main": {"id": "desktop-pane"}, "active": "desktop-pane"}"#,
        ".obsidian/plugins/dataview/main.js": "module.exports = class Dataview {}\n",
        ".obsidian/plugins/dataview/manifest.json": #"{"id": "dataview", "version": "0.5.66"}"#,
        ".obsidian/plugins/dataview/data.json": #"{"refreshInterval": 2500, "enableDataviewJs": false}"#,
        "Home.md": "# Home\n",
    ]

    private func write(_ text: String, _ path: String, in folder: URL) throws {
        let file = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    private func json(_ path: String, in folder: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(path))) as? [String: Any] ?? [:]
    }

    @Test func workspacesStayApartAndSettingsMergeKeyByKey() async throws {
        let desktop = newFolder(), phone = newFolder()
        defer { for folder in [desktop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let email = "obsidian-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            for (path, text) in Self.tree { try write(text, path, in: desktop) }
            let first = try await vaultsync(["init", desktop.path, "--create-account", "--device-name", "desktop"] + link)
            #expect(first.exitCode == 0 && first.stdout.contains("an Obsidian vault: .obsidian/workspace*.json and .obsidian/cache stay on each device"), "\(first)")
            let second = try await vaultsync(["init", phone.path, "--device-name", "phone"] + link)
            #expect(second.exitCode == 0 && second.stdout.contains("an Obsidian vault"), "said on the phone too, once the vault arrived: \(second)")
            #expect(!FileManager.default.fileExists(atPath: phone.appendingPathComponent(".obsidian/workspace.json").path), "the desktop's panes stay on the desktop")
            #expect(FileManager.default.fileExists(atPath: phone.appendingPathComponent(".obsidian/plugins/dataview/main.js").path), "plugins sync")

            // The phone writes its own panes; both change different settings of one file, and of a plugin's data.
            try write(#"{"main": {"id": "phone-pane"}}"#, ".obsidian/workspace-mobile.json", in: phone)
            try write(#"{"main": {"id": "desktop-pane-2"}, "active": "desktop-pane-2"}"#, ".obsidian/workspace.json", in: desktop)
            try write(#"{"alwaysUpdateLinks": true, "showLineNumber": true, "vimMode": false}"#, ".obsidian/app.json", in: desktop)
            try write(#"{"alwaysUpdateLinks": true, "showLineNumber": false, "vimMode": true}"#, ".obsidian/app.json", in: phone)
            try write(#"{"refreshInterval": 5000, "enableDataviewJs": false}"#, ".obsidian/plugins/dataview/data.json", in: desktop)
            try write(#"{"refreshInterval": 2500, "enableDataviewJs": true}"#, ".obsidian/plugins/dataview/data.json", in: phone)
            for folder in [desktop, phone, desktop] {
                let synced = try await vaultsync(["sync", folder.path])
                #expect(synced.exitCode == 0 && !synced.stdout.contains("conflict"), "\(synced)")
            }
            for folder in [desktop, phone] {
                let app = try json(".obsidian/app.json", in: folder)
                #expect(app["showLineNumber"] as? Bool == true && app["vimMode"] as? Bool == true, "both settings kept: \(app)")
                let data = try json(".obsidian/plugins/dataview/data.json", in: folder)
                #expect(data["refreshInterval"] as? Int == 5000 && data["enableDataviewJs"] as? Bool == true, "both plugin settings kept: \(data)")
            }
            #expect(try json(".obsidian/workspace.json", in: desktop)["active"] as? String == "desktop-pane-2")
            #expect(!FileManager.default.fileExists(atPath: phone.appendingPathComponent(".obsidian/workspace.json").path))
            #expect(!FileManager.default.fileExists(atPath: desktop.appendingPathComponent(".obsidian/workspace-mobile.json").path))
        }
    }

    private func text(_ path: String, in folder: URL) -> String? {
        try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }

    private func names(_ path: String, in folder: URL) -> [String]? {
        (try? JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(path)))) as? [String]
    }

    /// `--profile` and `vaultsync folders profile`: which community plugins are on is each device
    /// class's own (two phones share a list apart from the desktop's), while the plugins, settings
    /// and notes stay one for all; the list changed on both phones at once merges; `none` gives
    /// the shared file back to the device.
    @Test func pluginListsFollowEachDevicesProfile() async throws {
        let desktop = newFolder(), phone = newFolder(), tablet = newFolder()
        defer { for folder in [desktop, phone, tablet] { try? FileManager.default.removeItem(at: folder) } }
        let email = "profiles-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let list = ".obsidian/community-plugins.json"
        try await TestServer.with { server in
            let link = ["--server", server.baseURL.absoluteString, "--email", email]
            for (path, text) in Self.tree { try write(text, path, in: desktop) }
            try write("module.exports = class Calendar {}\n", ".obsidian/plugins/calendar/main.js", in: desktop)
            let bad = try await vaultsync(["init", phone.path, "--profile", "Phone"] + link)
            #expect(bad.exitCode == 64 && bad.stderr.contains("not a profile name"), "\(bad)")
            let first = try await vaultsync(["init", desktop.path, "--create-account", "--device-name", "desktop", "--profile", "desktop"] + link)
            #expect(first.exitCode == 0 && first.stdout.contains("profile: desktop"), "\(first)")
            let second = try await vaultsync(["init", phone.path, "--device-name", "phone", "--profile", "phone"] + link)
            #expect(second.exitCode == 0, "\(second)")
            #expect(names(list, in: phone) == nil, "the desktop's list is not the phone's")
            #expect(names(".obsidian/vaultsync-profiles/desktop/community-plugins.json", in: phone) == ["dataview"])
            #expect(FileManager.default.fileExists(atPath: phone.appendingPathComponent(".obsidian/plugins/calendar/main.js").path), "plugins sync to every device")

            // Obsidian on the phone turns calendar on; a second phone joins the class and takes its list.
            try write("[\n  \"calendar\"\n]", list, in: phone)
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            let third = try await vaultsync(["init", tablet.path, "--device-name", "tablet"] + link)
            #expect(third.exitCode == 0, "\(third)")
            let joined = try await vaultsync(["folders", "profile", "phone", "--vault", tablet.path])
            #expect(joined.exitCode == 0 && joined.stdout.contains("profile: phone"), "\(joined)")
            #expect(names(list, in: tablet) == ["calendar"], "the tablet takes the phones' list: \(text(list, in: tablet) ?? "none")")
            let shown = try await vaultsync(["folders", "show", "--vault", tablet.path, "--json"])
            #expect(shown.stdout.contains(#""profile":"phone""#) || shown.stdout.contains(#""profile" : "phone""#), "\(shown)")
            let status = try await vaultsync(["status", tablet.path])
            #expect(status.stdout.contains("profile: phone"), "\(status)")

            // Both phones change the list at once: merged as sets on both; the desktop's stays.
            try write("[\n  \"calendar\",\n  \"kanban\"\n]", list, in: phone)
            try write("[\n  \"dataview\"\n]", list, in: tablet)
            for folder in [phone, tablet, phone, desktop] {
                let synced = try await vaultsync(["sync", folder.path])
                #expect(synced.exitCode == 0 && !synced.stdout.contains("conflict"), "\(synced)")
            }
            for folder in [phone, tablet] { #expect(Set(names(list, in: folder) ?? []) == ["kanban", "dataview"], "\(text(list, in: folder) ?? "none")") }
            #expect(names(list, in: desktop) == ["dataview"], "the desktop's list is its own")

            // The desktop turns a plugin on: the phones do not get it.
            try write(#"["dataview", "calendar"]"#, list, in: desktop)
            for folder in [desktop, phone] { #expect(try await vaultsync(["sync", folder.path]).exitCode == 0) }
            #expect(Set(names(list, in: phone) ?? []) == ["kanban", "dataview"])
            #expect(names(".obsidian/vaultsync-profiles/desktop/community-plugins.json", in: phone) == ["dataview", "calendar"])

            // No profile: the file syncs with every device again (the tablet's list goes up as the shared one).
            let dropped = try await vaultsync(["folders", "profile", "none", "--vault", tablet.path])
            #expect(dropped.exitCode == 0 && dropped.stdout.contains("no profile"), "\(dropped)")
            #expect(try await vaultsync(["folders", "profile", "--vault", tablet.path]).stdout.contains("no profile"))
        }
    }
}

