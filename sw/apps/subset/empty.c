/* Baseline for code-size measurements: start-up code and nothing else. */
int main(void)
{
    return 0;
}
