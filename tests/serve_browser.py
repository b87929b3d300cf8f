"""Drives the page of a running `pgnindex serve` in headless chromium
through selenium: plays 1. e4 by clicking its explorer row, checks that the
board and the table follow, plays ...c5 on the board by clicks, steps
back and forward with the arrow keys, opens a game from the list and steps
through it, promotes a pawn dragged to the last rank to a knight from a
pasted FEN, opens a game with clocks and evaluations by its link, and
saves a screenshot. Prints "ok" when every check passed.

    python3 tests/serve_browser.py URL GAME_ID SCREENSHOT.png
"""

import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


def main(url, game_id, screenshot):
    options = webdriver.ChromeOptions()
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1200,1000"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    wait = WebDriverWait(driver, 30)
    css = lambda selector: driver.find_elements(By.CSS_SELECTOR, selector)

    def piece_on(square, piece):
        return lambda d: css(f'[data-square="{square}"] .piece[data-piece="{piece}"]')

    try:
        driver.get(url + "/")
        row = wait.until(lambda d: css('#explorer tbody tr[data-uci="e2e4"]'))[0]
        assert css('[data-square="e2"] .piece[data-piece="P"]'), "the start position is drawn"
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

        # A game of the list, stepped through.
        listed = wait.until(lambda d: css("#top li") + css("#recent li"))[0]
        listed.click()
        wait.until(lambda d: d.find_element(By.ID, "viewer").is_displayed())
        assert len(css("#viewer-moves .mv")) >= 2
        assert css('[data-square="e2"] .piece[data-piece="P"]'), "the game starts at its start"
        for _ in range(2):
            driver.find_element(By.ID, "fwd").click()
        wait.until(lambda d: css('#viewer-moves .mv.current[data-ply="2"]'))
        assert "ply 2/" in driver.find_element(By.ID, "clocks").text
        assert driver.find_element(By.ID, "pgn-link").get_attribute("href").endswith("/masters/pgn/" + listed.get_attribute("data-id"))
        driver.find_element(By.ID, "close-game").click()
        wait.until(lambda d: not d.find_element(By.ID, "viewer").is_displayed())

        # A pasted position; the pawn dragged to the last rank (the page's
        # drag and drop events, as the browser sends them) becomes the
        # piece chosen.
        fen = driver.find_element(By.ID, "fen")
        fen.clear()
        fen.send_keys("8/P6k/8/8/8/8/8/K7 w - - 0 1", Keys.ENTER)
        wait.until(piece_on("a7", "P"))
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

        # A game with clocks and evaluations, by its link.
        driver.get(f"{url}/#game={game_id}")
        wait.until(lambda d: d.find_element(By.ID, "viewer").is_displayed())
        wait.until(lambda d: css("#chart polyline"))
        for _ in range(6):
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        wait.until(lambda d: css('#viewer-moves .mv.current[data-ply="6"]'))
        clocks = driver.find_element(By.ID, "clocks").text
        assert "eval" in clocks and "White 0:" in clocks, clocks
        driver.save_screenshot(screenshot)
        print("ok")
    finally:
        driver.quit()


if __name__ == "__main__":
    main(*sys.argv[1:4])
