import Foundation
import TestSupport
import Testing

/// Every option the README and `docs/` show is one the executables take: the docs' command lines
/// (code blocks and code spans that run `vaultsync`, `vaultsync-server`, `vaultsync-bench` or
/// `infra/run-server.sh`) are checked against the `--help` of the command they name, and an
/// option shown on its own (`--apple-client-ids …`) against every command's.
@Suite struct DocumentedOptionsTests {
    /// The command a token of the docs starts: an executable by name or path (`.build/debug/vaultsync`),
    /// the README's `$V`, or the script that runs `vaultsync-server serve`.
    static func command(startedBy token: Substring) -> [String]? {
        if token == "$V" { return ["vaultsync"] }
        if token.hasSuffix("infra/run-server.sh") { return ["vaultsync-server", "serve"] }
        let parts = token.split(separator: "/")
        guard let name = parts.last.map(String.init), ["vaultsync", "vaultsync-server", "vaultsync-bench"].contains(name) else { return nil }
        // The executable by name, or by a path to a build or install folder (not a data folder
        // that happens to be called so).
        guard parts.count == 1 || ["debug", "release", "bin"].contains(parts[parts.count - 2]) else { return nil }
        return [name]
    }

    /// Words that leave the next one at the start of a command: `VAR=value`, `exec`, `sudo`.
    static func keepsCommandPosition(_ token: Substring) -> Bool {
        ["exec", "sudo", "env", "time", "nohup", "(", "$("].contains(token) || (token.contains("=") && !token.hasPrefix("-"))
    }
    /// Options the docs show of other programs, outside a command line of theirs: schemathesis's
    /// in `docs/openapi.md`.
    static let otherPrograms: Set<String> = ["--include-operation-id", "--max-examples", "--workers"]

    /// One command's help: its options and subcommands.
    struct Help {
        var options: Set<String>
        var subcommands: Set<String>
        var defaultSubcommand: String?
    }

    /// Reads the help of every command of every executable, following subcommands.
    static func helps() async throws -> [[String]: Help] {
        var helps: [[String]: Help] = [:]
        var queue: [[String]] = [["vaultsync"], ["vaultsync-server"], ["vaultsync-bench"]]
        while let command = queue.popLast() {
            let result = try await CLIProcess.run(command[0], Array(command.dropFirst()) + ["--help"], environment: ["COLUMNS": "300"])
            #expect(result.exitCode == 0, "\(command.joined(separator: " ")) --help: \(result)")
            let help = parse(result.stdout)
            helps[command] = help
            queue += help.subcommands.map { command + [$0] }
        }
        return helps
    }

    static func parse(_ text: String) -> Help {
        var help = Help(options: [], subcommands: [])
        var inSubcommands = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasSuffix(":") && !line.hasPrefix(" ") { inSubcommands = line == "SUBCOMMANDS:" }
            if inSubcommands, line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first, name.first?.isLowercase == true {
                help.subcommands.insert(String(name))
                if line.contains("(default)") { help.defaultSubcommand = String(name) }
            }
            for token in line.split(whereSeparator: { " ,<>[]()=".contains($0) }) where token.hasPrefix("--") { help.options.insert(String(token)) }
        }
        help.subcommands.remove("help")
        return help
    }

    /// What the docs show: the commands of code blocks (a line, with the lines a trailing `\`
    /// continues it onto), and code spans.
    static func snippets(of text: String) -> [String] {
        var snippets: [String] = []
        var inBlock = false
        var continued = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            if inBlock {
                let command = continued + (line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                if command.hasSuffix("\\") {
                    continued = String(command.dropLast()) + " "
                } else {
                    snippets.append(command)
                    continued = ""
                }
            } else {
                let parts = line.split(separator: "`", omittingEmptySubsequences: false)
                snippets += stride(from: 1, to: parts.count, by: 2).map { String(parts[$0]) }
            }
        }
        return snippets
    }

    /// An option as written, without what decorates it: `[--json]`, `--vault=NAME`, `--keep-local|--keep-remote`.
    static func options(in token: Substring) -> [String] {
        token.split(separator: "|").compactMap { part in
            let trimmed = part.trimmingCharacters(in: CharacterSet(charactersIn: "[](),.;:'\"…"))
            guard trimmed.hasPrefix("--"), trimmed.count > 2 else { return nil }
            return String(trimmed.prefix { $0 != "=" })
        }
    }

    /// Problems of one snippet: options its command does not take.
    static func check(_ snippet: String, helps: [[String]: Help], everyOption: Set<String>) -> [String] {
        let tokens = snippet.split(whereSeparator: \.isWhitespace)
        var problems: [String] = []
        if let first = tokens.first, first.hasPrefix("--") {
            for option in options(in: first) where !everyOption.contains(option) && !otherPrograms.contains(option) {
                problems.append("\(option) (shown on its own) is an option of no command")
            }
        }
        var command: [String]?
        var ambiguous = false
        var atCommandStart = true
        for token in tokens {
            if ["&&", "||", ";", "|", ">", "2>", "&"].contains(token) || token.hasSuffix(";") {
                command = nil
                atCommandStart = true
                continue
            }
            if atCommandStart, let start = Self.command(startedBy: token) {
                command = start
                ambiguous = false
                atCommandStart = false
                continue
            }
            if atCommandStart && Self.keepsCommandPosition(token) { continue }
            atCommandStart = false
            guard var current = command, !ambiguous, let help = helps[current] else { continue }
            if token.hasPrefix("--") || token.hasPrefix("[--") {
                // An option given to `vaultsync-server` itself belongs to its default subcommand.
                if help.subcommands.count > 0, let fallback = help.defaultSubcommand { current.append(fallback) }
                let options = helps[current]?.options ?? []
                // `vaultsync --version` alone is read before the command line is parsed (a root flag
                // would take `restore PATH --version N`'s); CLIOutputTests runs it.
                for option in Self.options(in: token) where !options.contains(option) && !(current == ["vaultsync"] && option == "--version") {
                    problems.append("\(option) is not an option of '\(current.joined(separator: " "))'")
                }
                command = current
                continue
            }
            let word = token.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if help.subcommands.contains(word) {
                command = current + [word]
            } else if word.split(separator: "|").contains(where: { help.subcommands.contains(String($0)) }) {
                ambiguous = true  // `vaults [list|create|…]`: which subcommand the options belong to is not said
            }
        }
        return problems
    }

    @Test func everyOptionTheDocsShowIsAccepted() async throws {
        let helps = try await Self.helps()
        #expect(helps.count > 30, "the commands were read: \(helps.keys.map { $0.joined(separator: " ") }.sorted())")
        let everyOption = helps.values.reduce(into: Set<String>()) { $0.formUnion($1.options) }
        var checked = 0
        var problems: [String] = []
        for file in ["README.md"] + Repository.files(under: "docs", endingWith: ".md") {
            for snippet in Self.snippets(of: try Repository.text(file)) where snippet.contains("--") {
                checked += 1
                problems += Self.check(snippet, helps: helps, everyOption: everyOption).map { "\(file): `\(snippet.prefix(120))`: \($0)" }
            }
        }
        #expect(checked > 100, "the docs' command lines were read: \(checked)")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The checker itself: a misnamed option is found wherever the docs show it.
    @Test func theCheckerFindsAnOptionNoCommandTakes() {
        let helps: [[String]: Help] = [
            ["vaultsync-server"]: Help(options: ["--help"], subcommands: ["serve", "user"], defaultSubcommand: "serve"),
            ["vaultsync-server", "serve"]: Help(options: ["--apple-client-i-ds", "--port"], subcommands: []),
            ["vaultsync-server", "user"]: Help(options: [], subcommands: ["list"]),
            ["vaultsync-server", "user", "list"]: Help(options: ["--json"], subcommands: []),
        ]
        let every: Set<String> = ["--apple-client-i-ds", "--port", "--json", "--help"]
        #expect(Self.check("--apple-client-ids org.example.notes", helps: helps, everyOption: every).count == 1)
        #expect(Self.check("vaultsync-server serve --apple-client-ids x --port 1", helps: helps, everyOption: every).count == 1)
        #expect(Self.check("vaultsync-server --apple-client-ids x", helps: helps, everyOption: every).count == 1)
        #expect(Self.check("infra/run-server.sh --port 1 && vaultsync-server user list --json", helps: helps, everyOption: every).isEmpty)
        #expect(Self.check("vaultsync-server user list --port 1", helps: helps, everyOption: every).count == 1)
    }
}
