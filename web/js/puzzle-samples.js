// @ts-check
// Sample mate puzzles from the Lichess open puzzle database (CC0), as collected in
// ../shared/data/puzzles/lichess_m2_m3_sample50.csv (side to move mates; first rows of each length).

/** `{id, fen, mate, rating, themes}` */
export const PUZZLE_SAMPLES = [
  { id: '00s8j', fen: '3R4/ppk5/2r5/5Q2/4p3/P7/5PPP/6K1 b - - 0 35', mate: 2, rating: 733, themes: 'backRankMate endgame queenRookEndgame' },
  { id: '06KDC', fen: '8/2rk4/p5Q1/1p1qR1b1/3P4/6P1/PPP4P/1K6 b - - 4 35', mate: 2, rating: 931, themes: 'endgame' },
  { id: '09Ff3', fen: '3k3r/p1R4P/4p3/4P3/1b3P2/4p3/P2nq3/K1R5 w - - 3 41', mate: 2, rating: 1616, themes: 'endgame' },
  { id: '0ADxl', fen: 'r1r3k1/pp2ppBp/3pb1p1/3q4/4N2P/P7/1PPQBPP1/1K1R3R b - - 0 15', mate: 2, rating: 894, themes: 'middlegame queensideAttack' },
  { id: '021YG', fen: '6k1/p4ppp/2Q5/8/2B5/2P5/PP2qbPP/3R3K b - - 0 23', mate: 2, rating: 576, themes: 'endgame' },
  { id: '03fwn', fen: 'r4r2/p1p2pkp/1p1p1qp1/3P1bQ1/2P1P2R/2Nn4/PP4PP/6K1 w - - 0 22', mate: 2, rating: 1109, themes: 'middlegame' },
  { id: '063Cg', fen: '5k1r/pp1q1p2/5Qp1/3p4/1P6/P3PBpN/5PKP/2RR4 b - - 0 27', mate: 3, rating: 1353, themes: 'middlegame' },
  { id: '09IbS', fen: '8/8/R2R3p/7k/6p1/2r4P/6PK/8 b - - 1 34', mate: 3, rating: 1237, themes: 'endgame rookEndgame' },
  { id: '06gix', fen: 'r3r1k1/pp1qnpp1/2p4p/6N1/3PQ3/1P6/P4PPP/R3R1K1 w - - 0 18', mate: 3, rating: 1222, themes: 'kingsideAttack middlegame' },
  { id: '01rQs', fen: 'r5k1/1q2Rp2/p5rp/1p1b2p1/5n2/8/PQ4PP/4R1K1 w - - 4 36', mate: 3, rating: 862, themes: 'middlegame' },
  { id: '05c4u', fen: '2k4r/ppp2Qpp/4p3/8/2P5/1Pb3P1/P3KPq1/3R4 w - - 0 19', mate: 3, rating: 1143, themes: 'backRankMate endgame sacrifice' },
  { id: '0AJJM', fen: 'r1r5/3k4/2q1p1p1/3p3p/p2B4/Q3RP2/PPP3PP/1K2R3 b - - 0 24', mate: 3, rating: 735, themes: 'backRankMate middlegame sacrifice' },
];
