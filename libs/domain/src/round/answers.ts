/**
 * The one rule for a critic's answers to a round (a FindingsReported or a CriticFailed): the
 * first answer of a critic to the round counts; a later one (a redelivery, a second replica, a
 * timeout after the report) changes nothing. The loop state folds by it, the letter is written by
 * it, and the answering side (answerRound in @rloop/critic-sdk) dedupes its work by the same key.
 */
export function isFirstAnswer(
  round: number,
  hasAnswered: (criticId: string) => boolean,
  answer: { readonly round: number; readonly critic_id: string },
): boolean {
  return answer.round === round && !hasAnswered(answer.critic_id);
}
