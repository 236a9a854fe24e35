/// Text made safe as HTML or XML character data or a quoted attribute value: the web app's pages
/// and WebDAV's answers escape with this one rule.
enum Markup {
    static func escape(_ text: some StringProtocol) -> String {
        // Most text has nothing to escape: a pass over its bytes says so without walking its characters.
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return String(text) }
        // The five are ASCII, so bytes are replaced one for one and every other byte is kept as it is.
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case 0x26: out += "&amp;".utf8
            case 0x3C: out += "&lt;".utf8
            case 0x3E: out += "&gt;".utf8
            case 0x22: out += "&quot;".utf8
            case 0x27: out += "&#39;".utf8
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
