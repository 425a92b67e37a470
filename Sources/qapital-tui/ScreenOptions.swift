import ArgumentParser

/// What only the full-screen app takes (`qapital-tui` and `qapital-tui run`): how it draws. The
/// headless commands write data, so they neither list nor accept these.
struct ScreenOptions: ParsableArguments {
    @Option(help: ArgumentHelp("An achievements JSON file ({\"overview\": {\"title\"}, \"achievements\": [...]}; default: the bundled one).", valueName: "path"))
    var achievements: String?

    @Flag(name: .customLong("no-images"), help: "Show monograms instead of goal images and avatars.")
    var noImages = false

    @Flag(name: .customLong("screen-reader"),
          help: "For a screen reader or braille display: the cursor shown on the selected row, words for the spinner, no pictures (also ACCESSIBLE=1, or [ui] screen-reader = true).")
    var screenReader = false

    @Option(help: ArgumentHelp("The colours: default (the terminal's own), light or dark (default: the config file's, else default).", valueName: "name"))
    var theme: String?

    @Flag(name: .customLong("no-browser"), help: "Signing in at a bank in the app (L, Enable Banking): only show the address; do not open a browser.")
    var noBrowser = false
}
