"""Drives the page of a running `pgnindex serve` in headless chromium
through selenium: plays 1. e4 by clicking its explorer row, checks that the
board and the table follow, plays ...c5 on the board by clicks, steps
back and forward with the arrow keys; opens a game from the list, which
starts at the position explored, and steps through it with the explorer
following (board, table, FEN and line show one position); leaves it by a
move on the board; refuses a bad FEN and clears the error at the next
answer; promotes a pawn dragged to the last rank to a knight from a pasted
FEN, in a position no game reaches; shows "no games" for an empty list;
finds a player from a part of the name in lower case; switches between
the masters', lichess's and a player's explorer; keeps the line in the
address across a reload; draws a move's arrow while its row is under the
pointer; plays moves pasted in the FEN box; keeps the board's side across
reloads; opens a game with clocks and evaluations by its link; fits a
390 px wide screen, with the board's coordinates; and saves a screenshot. Prints "ok" when every check
passed.

    python3 tests/serve_browser.py URL GAME_ID UNRATED_GAME_ID SCREENSHOT.png

GAME_ID has clocks and evaluations; UNRATED_GAME_ID lacks a rating.
"""

import sys
import urllib.parse

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


# The page's view of the position: the board's placement, the FEN box, the
# current move of the line, the explorer's rows, and whether its answer is
# still awaited.
SHOWN = """
const rows = [];
for (let rank = 8; rank >= 1; rank--) {
  let row = "", empty = 0;
  for (const file of "abcdefgh") {
    const piece = document.querySelector(`[data-square="${file}${rank}"] .piece`);
    if (!piece) { empty++; continue; }
    if (empty) row += empty;
    empty = 0;
    row += piece.dataset.piece;
  }
  rows.push(empty ? row + empty : row);
}
const current = document.querySelector("#line .mv.current");
return {
  board: rows.join("/"),
  fen: document.getElementById("fen").value,
  ply: current ? Number(current.dataset.ply) : 0,
  table: [...document.querySelectorAll("#explorer tbody tr")].map((r) => r.dataset.uci),
  loading: document.getElementById("explorer").classList.contains("loading"),
};
"""

FETCH = """
const done = arguments[arguments.length - 1];
fetch(arguments[0]).then((r) => r.json()).then(done, () => done(null));
"""


def key(fen):
    """A FEN's first four fields: the position, without the counters."""
    return " ".join(fen.split()[:4])


def main(url, game_id, unrated_id, screenshot):
    options = webdriver.ChromeOptions()
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1200,1000"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    # The page redraws the board and lists as answers come: an element
    # found may be replaced before it is read, and the wait tries again.
    wait = WebDriverWait(driver, 30, ignored_exceptions=(StaleElementReferenceException,))
    css = lambda selector: driver.find_elements(By.CSS_SELECTOR, selector)

    def piece_on(square, piece):
        return lambda d: css(f'[data-square="{square}"] .piece[data-piece="{piece}"]')

    def fetch(path):
        return driver.execute_async_script(FETCH, path)

    def shown():
        return driver.execute_script(SHOWN)

    def one_position(fen, ply=None):
        """The board, the FEN box, the line and the explorer's table all
        show `fen` (the table as the explorer answers for that FEN), at
        `ply` of the line when given."""
        def check(_):
            s = shown()
            if s["loading"] or key(s["fen"]) != key(fen) or s["board"] != fen.split()[0]:
                return False
            if ply is not None and s["ply"] != ply:
                return False
            answer = fetch("/lichess?moves=256&fen=" + urllib.parse.quote(s["fen"]))
            return answer is not None and s["table"] == [m["uci"] for m in answer["moves"]]
        return check

    def fen_box():
        return driver.find_element(By.ID, "fen").get_attribute("value")

    def displayed(id):
        return driver.find_element(By.ID, id).is_displayed()

    try:
        driver.get(url + "/")
        row = wait.until(lambda d: css('#explorer tbody tr[data-uci="e2e4"]'))[0]
        assert css('[data-square="e2"] .piece[data-piece="P"]'), "the start position is drawn"
        files = [c.text for c in css("#board .coord.file")]
        ranks = [c.text for c in css("#board .coord.rank")]
        assert (files, ranks) == (list("abcdefgh"), list("87654321")), (files, ranks)
        row.click()
        wait.until(piece_on("e4", "P"))
        assert not css('[data-square="e2"] .piece'), "e2 is empty after 1. e4"
        wait.until(lambda d: css('#explorer tbody tr[data-uci="c7c5"]'))
        assert not css('#explorer tbody tr[data-uci="e2e4"]'), "the table is Black's moves now"
        assert "King's Pawn" in driver.find_element(By.ID, "opening").text
        assert "e4" in driver.find_element(By.ID, "line").text

        # ...c5 by two clicks on the board.
        css('[data-square="c7"]')[0].click()
        assert css('[data-square="c5"].target'), "c5 is shown as a target of the c-pawn"
        css('[data-square="c5"]')[0].click()
        wait.until(piece_on("c5", "p"))
        wait.until(lambda d: "Sicilian" in d.find_element(By.ID, "opening").text)

        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.ARROW_LEFT)
        wait.until(lambda d: not css('[data-square="c5"] .piece'))
        body.send_keys(Keys.ARROW_RIGHT)
        wait.until(piece_on("c5", "p"))
        explored = fen_box()
        wait.until(one_position(explored, 2))
        for li in css("#lists li"):
            label = li.text
            assert "½-½ / *" not in label and not label.endswith(", "), label

        # A game of the list opens where it reaches the position explored,
        # and the explorer follows it.
        listed = wait.until(lambda d: css("#top li[data-id]") + css("#recent li[data-id]"))[0]
        listed_id = listed.get_attribute("data-id")
        game = fetch("/api/game/" + listed_id)
        fens = [game["startFen"]] + [p["fen"] for p in game["plies"]]
        reached = [key(f) for f in fens].index(key(explored))
        assert reached > 0 and len(fens) > reached + 2, (reached, len(fens))
        listed.click()
        wait.until(lambda d: displayed("viewer"))
        wait.until(one_position(fens[reached], reached))
        assert f"ply {reached}/" in driver.find_element(By.ID, "clocks").text
        assert driver.find_element(By.ID, "pgn-link").get_attribute("href").endswith("/api/pgn/" + listed_id)
        for _ in range(2):
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        wait.until(one_position(fens[reached + 2], reached + 2))
        assert f"ply {reached + 2}/" in driver.find_element(By.ID, "clocks").text
        driver.find_element(By.ID, "fwd").click()
        wait.until(one_position(fens[reached + 3], reached + 3))
        css('#line .mv[data-ply="1"]')[0].click()
        wait.until(one_position(fens[1], 1))
        assert len(css("#line .mv")) == len(game["plies"]), "the line is the game's"

        # A move on the board that the game did not play leaves the game
        # (one that other games played, so that the lists have games).
        legal = fetch("/api/position?fen=" + urllib.parse.quote(fens[1]))
        table = fetch("/lichess?moves=256&fen=" + urllib.parse.quote(fens[1]))
        played = [m["uci"] for m in table["moves"] if m["uci"] != game["plies"][1]["uci"]]
        other = next(m for m in legal["moves"] if m["lichess"] == played[0])
        after = fetch("/api/position?fen=" + urllib.parse.quote(fens[1]) + "&play=" + other["uci"])
        css(f'[data-square="{other["from"]}"]')[0].click()
        css(f'[data-square="{other["to"]}"]')[0].click()
        wait.until(lambda d: not displayed("viewer"))
        wait.until(one_position(after["fen"], 2))
        assert [m.text for m in css("#line .mv")] == [game["plies"][0]["san"], other["san"]]

        # Closed, a game leaves the board where it was.
        listed = wait.until(lambda d: css("#top li[data-id]") + css("#recent li[data-id]"))[0]
        listed.click()
        wait.until(lambda d: displayed("viewer"))
        wait.until(one_position(after["fen"]))
        driver.find_element(By.ID, "close-game").click()
        wait.until(lambda d: not displayed("viewer") and displayed("lists"))
        assert key(fen_box()) == key(after["fen"])

        # A FEN the server refuses: the error shows until an answer comes.
        fen = driver.find_element(By.ID, "fen")
        fen.clear()
        fen.send_keys("not a fen", Keys.ENTER)
        wait.until(lambda d: "bad request" in d.find_element(By.ID, "status").text)
        assert shown()["board"] == after["fen"].split()[0], "the board stays"
        css("#explorer tbody tr")[0].click()
        wait.until(lambda d: d.find_element(By.ID, "status").text == "")

        # A pasted position; the pawn dragged to the last rank (the page's
        # drag and drop events, as the browser sends them) becomes the
        # piece chosen.
        fen = driver.find_element(By.ID, "fen")
        fen.clear()
        fen.send_keys("8/P6k/8/8/8/8/8/K7 w - - 0 1", Keys.ENTER)
        wait.until(piece_on("a7", "P"))
        wait.until(lambda d: displayed("empty"))
        assert driver.find_element(By.ID, "empty").text == "no games in this position"
        assert not displayed("explorer") and not displayed("top-head")
        driver.execute_script(
            """const [from, to] = arguments;
            const data = new DataTransfer();
            const piece = document.querySelector(`[data-square="${from}"] .piece`);
            piece.dispatchEvent(new DragEvent("dragstart", {bubbles: true, dataTransfer: data}));
            const target = document.querySelector(`[data-square="${to}"]`);
            target.dispatchEvent(new DragEvent("dragover", {bubbles: true, cancelable: true, dataTransfer: data}));
            target.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: data}));""",
            "a7", "a8")
        choices = wait.until(lambda d: [b for b in css("#promotion button[data-promotion]") if b.is_displayed()])
        assert [b.get_attribute("data-promotion") for b in choices] == ["q", "r", "b", "n"]
        css('#promotion button[data-promotion="n"]')[0].click()
        wait.until(piece_on("a8", "N"))
        assert "a8=N" in driver.find_element(By.ID, "line").text
        assert not driver.find_element(By.ID, "promotion").is_displayed()

        # A position only a game without ratings reaches: no top games.
        unrated = fetch("/api/game/" + unrated_id)
        fen.clear()
        fen.send_keys(unrated["plies"][-2]["fen"], Keys.ENTER)
        wait.until(lambda d: css("#recent li[data-id]") and css("#top li.none"))
        assert css("#top li.none")[0].text == "no games" and displayed("top-head")

        # A part of a player's name, in lower case, finds the player; the
        # player's explorer has no top games.
        driver.get(url + "/")
        wait.until(lambda d: css("#explorer tbody tr"))
        css('#dbs button[data-db="player"]')[0].click()
        wait.until(lambda d: d.find_element(By.ID, "empty").text == "choose a player")
        player = driver.find_element(By.ID, "player")
        player.send_keys("dannythedon", Keys.ENTER)
        wait.until(lambda d: player.get_attribute("value") == "DannyTheDonkey")
        wait.until(lambda d: css("#recent li[data-id]") and not displayed("top-head"))
        answer = fetch("/player?player=DannyTheDonkey&color=white")
        games = answer["white"] + answer["draws"] + answer["black"] + answer["unfinished"]
        wait.until(lambda d: d.find_element(By.ID, "total").text == f"{games:,}")
        player.clear()
        player.send_keys("kasparov", Keys.ENTER)
        wait.until(lambda d: "no player matches" in d.find_element(By.ID, "player-hint").text)
        player.clear()
        player.send_keys("an", Keys.ENTER)
        choices = wait.until(lambda d: css("#player-hint button[data-name]"))
        assert len(choices) > 1
        name = choices[1].get_attribute("data-name")
        choices[1].click()
        wait.until(lambda d: player.get_attribute("value") == name and not displayed("player-hint"))
        player.clear()
        player.send_keys(Keys.ENTER)
        wait.until(lambda d: d.find_element(By.ID, "empty").text == "choose a player")
        css('#dbs button[data-db="lichess"]')[0].click()
        wait.until(lambda d: displayed("top-head"))

        # The database switch: the masters' games.
        def total_is(answer):
            n = answer["white"] + answer["draws"] + answer["black"] + answer["unfinished"]
            return lambda d: d.find_element(By.ID, "total").text == f"{n:,}"
        css('#dbs button[data-db="masters"]')[0].click()
        wait.until(total_is(fetch("/masters?moves=256")))
        assert not displayed("recent-head"), "masters list top games only"
        css('#dbs button[data-db="lichess"]')[0].click()
        wait.until(total_is(fetch("/lichess?moves=256")))

        # The line is in the address: a reload keeps it.
        driver.get(url + "/?play=e2e4,c7c5")
        wait.until(piece_on("c5", "p"))
        wait.until(lambda d: [m.text for m in css("#line .mv")] == ["e4", "c5"] and shown()["ply"] == 2)
        css('#explorer tbody tr[data-uci="g1f3"]')[0].click()
        wait.until(lambda d: "play=e2e4%2Cc7c5%2Cg1f3" in d.current_url)
        driver.refresh()
        wait.until(lambda d: [m.text for m in css("#line .mv")] == ["e4", "c5", "Nf3"])

        # A move's row under the pointer draws its arrow on the board.
        row = wait.until(lambda d: css('#explorer tbody tr[data-uci="d7d6"]'))[0]
        ActionChains(driver).move_to_element(row).perform()
        wait.until(lambda d: css("#arrows polygon"))
        assert driver.find_element(By.ID, "arrows").get_attribute("data-move") == "d7d6"
        ActionChains(driver).move_to_element(driver.find_element(By.ID, "opening")).perform()
        wait.until(lambda d: not css("#arrows polygon"))

        # Moves pasted in the FEN box are played from the start.
        fen = driver.find_element(By.ID, "fen")
        fen.clear()
        fen.send_keys("1. d4 Nf6 2. c4", Keys.ENTER)
        wait.until(lambda d: [m.text for m in css("#line .mv")] == ["d4", "Nf6", "c4"])
        wait.until(piece_on("c4", "P"))

        # The settings last across reloads: the board stays flipped.
        driver.find_element(By.ID, "flip").click()
        driver.get(url + "/")
        wait.until(lambda d: [c.text for c in css("#board .coord.file")] == list("hgfedcba"))
        driver.find_element(By.ID, "flip").click()
        wait.until(lambda d: [c.text for c in css("#board .coord.file")] == list("abcdefgh"))

        # A game with clocks and evaluations, by its link.
        driver.get(f"{url}/#game={game_id}")
        wait.until(lambda d: d.find_element(By.ID, "viewer").is_displayed())
        wait.until(lambda d: css("#chart polyline"))
        for _ in range(6):
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        wait.until(lambda d: css('#line .mv.current[data-ply="6"]'))
        clocks = driver.find_element(By.ID, "clocks").text
        assert "eval" in clocks and "White 0:" in clocks, clocks
        driver.save_screenshot(screenshot)

        # A narrow screen: nothing wider than it.
        driver.set_window_size(390, 844)
        driver.get(url + "/")
        wait.until(lambda d: css("#explorer tbody tr"))
        width, inner, board = driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth,"
            " document.getElementById('board').getBoundingClientRect().right]")
        assert width <= inner and board <= inner, (width, inner, board)
        print("ok")
    finally:
        driver.quit()


if __name__ == "__main__":
    main(*sys.argv[1:5])
