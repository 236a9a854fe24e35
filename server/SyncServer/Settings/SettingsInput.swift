public import Foundation

/// The settings a command was given: its flags (taken out of the command line before the rest is
/// parsed) and the process's environment. A flag wins over the environment.
public struct SettingsInput: Sendable {
    /// Each flag's values by name, in the order given.
    public private(set) var flags: [String: [String]] = [:]
    public let environment: [String: String]

    public init(flags: [String: [String]] = [:], environment: [String: String]) {
        self.flags = flags
        self.environment = environment
    }

    /// Takes the settings of `known` out of `arguments` (`--name VALUE`, `--name=VALUE`, a flag's
    /// `--name`), up to a `--`; returns them and the arguments left for the command's own parser.
    /// - Throws: ``SettingError`` for a setting without its value.
    public static func extract(_ arguments: [String], known: [ServerSetting], environment: [String: String]) throws(SettingError) -> (input: SettingsInput, rest: [String]) {
        let byName = Dictionary(known.compactMap { setting in setting.flag.map { ($0, setting) } }, uniquingKeysWith: { a, _ in a })
        var input = SettingsInput(environment: environment)
        var rest: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                rest += arguments[(index - 1)...]
                break
            }
            let (flag, inline) = argument.split(separator: "=", maxSplits: 1).map(String.init).splitFlag
            guard let setting = byName[flag] else {
                rest.append(argument)
                continue
            }
            if setting.kind == .flag {
                guard inline == nil else { throw SettingError("\(flag) takes no value") }
                input.flags[setting.name, default: []].append("true")
                continue
            }
            if let inline {
                input.flags[setting.name, default: []].append(inline)
            } else {
                guard index < arguments.endIndex else { throw SettingError("\(flag) needs a value") }
                input.flags[setting.name, default: []].append(arguments[index])
                index += 1
            }
        }
        return (input, rest)
    }

    /// The values `settings` describe: each from its flags, else its environment key, else its
    /// default.
    /// - Throws: ``SettingError`` naming the flag or key of a value that cannot be used, or a
    ///   flag given to a command that does not read it.
    public func values(of settings: [ServerSetting], command: String) throws(SettingError) -> ServerSettingsValues {
        let names = Set(settings.map(\.name))
        if let stray = flags.keys.sorted().first(where: { !names.contains($0) }) {
            throw SettingError("'\(command)' does not take --\(stray)")
        }
        var values = ServerSettingsValues()
        for setting in settings {
            let (texts, source) = texts(of: setting)
            for text in texts {
                do { try setting.apply(&values, text) } catch { throw SettingError("\(source): \(error.description)") }
            }
        }
        try ServerSettings.finish(&values)
        return values
    }

    /// What was given for `setting`, and where it came from (for an error message).
    private func texts(of setting: ServerSetting) -> (texts: [String], source: String) {
        if let given = flags[setting.name], let flag = setting.flag {
            if case .list = setting.kind { return (given, flag) }
            return ([given.last!], flag)
        }
        for key in [setting.environment] + setting.alternatives {
            guard let text = environment[key] else { continue }
            if case .list(_, let separator) = setting.kind { return (text.split(separator: separator).map(String.init), key) }
            return ([text], key)
        }
        return ([], "")
    }
}

extension Array where Element == String {
    /// `["--port", "80"]` split at the first `=` into the flag and its inline value.
    fileprivate var splitFlag: (String, String?) { (self[0], count > 1 ? self[1] : nil) }
}

extension ServerSettings {
    /// The settings section of a command's `--help`.
    public static func help(_ settings: [ServerSetting]) -> String {
        var lines = ["SETTINGS (a flag wins over its environment variable; secrets come from", "the environment only):"]
        for setting in settings {
            lines.append("  " + (setting.synopsis { "<\($0)>" } ?? setting.environment))
            var text = setting.help
            if let defaultText = setting.defaultDescription { text += " Default: \(defaultText)." }
            if setting.kind != .secret { text += " Env: \(setting.environment)." }
            if !setting.alternatives.isEmpty { text += " Else \(setting.alternatives.joined(separator: ", "))." }
            lines += wrap(text, width: 72).map { "      " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// The table of every setting in `docs/deployment.md` (a test checks it is current).
    public static var markdownTable: String {
        var lines = ["| flag | environment | default | what it sets |", "|---|---|---|---|"]
        for setting in serve {
            let flag = setting.synopsis { $0.uppercased() }.map { "`\($0)`".replacingOccurrences(of: " (repeatable)`", with: "` (repeatable)") } ?? "(environment only)"
            let keys = ([setting.environment] + setting.alternatives).map { "`\($0)`" }.joined(separator: ", then ")
            let help = setting.help.replacingOccurrences(of: "|", with: "\\|")
            lines.append("| \(flag) | \(keys) | \(setting.defaultDescription ?? "") | \(help) |")
        }
        return lines.joined(separator: "\n")
    }

    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
