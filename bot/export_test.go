package bot

// LogTurn writes a turn's query log row, for the tests of package bot_test.
var LogTurn = (*Bot).logTurn
