import CNcurses

// libFuzzer entry: any bytes as what a terminal sends on the app's input, through the start-up
// probe's `TerminalReplyParser` and the key decoding's `KeyStream` (both on one
// `EscapeSequenceScanner`). Built inside TermUI's module (Fuzz/run.sh). Checks:
// - the parser gives the same answer, keys and counts whether the bytes come in one read or in
//   reads cut where the input says; it keeps no more keys than bytes; the replies it keeps are
//   in range (sizes 1…4096, a printable name of at most 80 characters);
// - the key stream, fed the bytes as `get_wch` would give them (0xFE then a byte: a key code
//   ncurses decoded; 0xFD: the input went quiet), never holds more than the scanner's limit,
//   has nothing pending after a flush, gives a resize only for a resize, and at most two keys
//   per character; on ASCII alone, it reads the same replies as the parser;
// - whatever the bytes, wrapped as a string (APC … ST) or as a DA1 reply they yield no key.

private let keyCodes: [Int32] = [KEY_UP, KEY_RESIZE, qt_key_f(1), KEY_BACKSPACE, KEY_NPAGE]

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReplies(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Array(UnsafeBufferPointer(start: bytes, count: count))

    // The probe's parser, in one read and in pieces.
    var whole = TerminalReplyParser()
    whole.feed(data)
    whole.finish()
    var pieces = TerminalReplyParser()
    var seed = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(data.first ?? 0)
    var index = 0
    while index < data.count {
        seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let end = min(data.count, index + 1 + Int(seed >> 59))
        pieces.feed(data[index..<end])
        index = end
    }
    pieces.finish()
    check(pieces.replies == whole.replies, "the replies depend on how the reads were cut")
    check(pieces.input == whole.input, "the keys depend on how the reads were cut")
    check(pieces.dropped == whole.dropped && pieces.isComplete == whole.isComplete, "the counts depend on the reads")
    check(whole.input.count <= data.count, "more keys than bytes")
    check(whole.isComplete == whole.replies.answered, "complete without the device attributes")
    let replies = whole.replies
    for size in [replies.cellPixels, replies.windowPixels].compactMap({ $0 }) {
        check((1...4096).contains(size.width) && (1...4096).contains(size.height), "a size out of range: \(size)")
    }
    if let version = replies.version {
        check(version.unicodeScalars.count <= 80, "a name longer than 80")
        check(version.unicodeScalars.allSatisfy { (0x20..<0x7F).contains($0.value) }, "a name with a control character")
    }

    // The key stream, as get_wch would feed it.
    var stream = KeyStream()
    var keys: [Key] = []
    var items = 0, resizes = 0
    var position = 0
    while position < data.count {
        let byte = data[position]
        position += 1
        switch byte {
        case 0xFE where position < data.count:
            let code = keyCodes[Int(data[position]) % keyCodes.count]
            position += 1
            if code == KEY_RESIZE { resizes += 1 }
            keys += stream.feed(status: KEY_CODE_YES, value: UInt32(bitPattern: code))
            items += 1
        case 0xFD:
            keys += stream.flush()
            check(!stream.isPending, "pending after a flush")
        default:
            keys += stream.feed(status: OK, value: UInt32(byte))
            items += 1
        }
        check(stream.bufferedCount <= EscapeSequenceScanner.maxStringContent, "the scanner holds \(stream.bufferedCount) bytes")
    }
    keys += stream.flush()
    check(!stream.isPending, "pending after a flush")
    check(keys.count <= 2 * items + 1, "\(keys.count) keys from \(items) characters")
    check(keys.filter { $0 == .resize }.count == resizes, "a resize that was not one")

    // The checks below on the first bytes only: past the scanner's limit is enough, and each
    // pass over a long input costs (the CI pass runs every harness 20,000 times).
    let head = data.prefix(EscapeSequenceScanner.maxStringContent + 100)
    if head.allSatisfy({ $0 < 0x80 }) {
        var reference = whole
        if head.count < data.count {
            reference = TerminalReplyParser()
            reference.feed(head)
            reference.finish()
        }
        var plain = KeyStream()
        for byte in head { _ = plain.feed(status: OK, value: UInt32(byte)) }
        _ = plain.flush()
        check(plain.lateReplies == reference.replies, "the key stream read other replies than the probe")
    }

    // Any content as a string, any parameters as DA1: no key.
    let content = head.filter { $0 != 0x1B && $0 != 0x18 && $0 != 0x1A }
    let apc: [UInt8] = [0x1B, UInt8(ascii: "_")] + content + [0x1B, UInt8(ascii: "\\")]
    let parameters = head.filter { (0x30...0x3F).contains($0) }.prefix(60)
    let da1: [UInt8] = [0x1B, UInt8(ascii: "["), UInt8(ascii: "?")] + parameters + [UInt8(ascii: "c")]
    for sequence in [apc, da1] {
        var parser = TerminalReplyParser()
        parser.feed(sequence)
        parser.finish()
        check(parser.input.isEmpty, "a reply reached the probe's keys")
        var keyStream = KeyStream()
        var produced: [Key] = []
        for byte in sequence { produced += keyStream.feed(status: OK, value: UInt32(byte)) }
        produced += keyStream.flush()
        check(produced.isEmpty, "a reply became keys: \(produced)")
    }
    return 0
}
